package transport

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"fmt"
	"strconv"
	"time"
)

// Cert is what httpslab reports about one certificate a server sent: the
// same facts under the same JSON names wherever a chain is shown (probe's
// TLS facts, audit's certificate check).
type Cert struct {
	Subject    string    `json:"subject"`
	Issuer     string    `json:"issuer"`
	KeyType    string    `json:"key_type"`            // "ECDSA P-256", "RSA 2048", "Ed25519" (KeyType)
	KeyBits    int       `json:"key_bits"`            // RSA modulus or curve size; 0 for a key of another kind
	SigAlg     string    `json:"signature_algorithm"` // x509.SignatureAlgorithm.String, e.g. "ECDSA-SHA256"
	NotAfter   time.Time `json:"not_after"`
	Bytes      int       `json:"bytes"`       // DER size, as sent on the wire
	SelfSigned bool      `json:"self_signed"` // issued by its own subject and signed by its own key
	DER        []byte    `json:"-"`           // the certificate itself, for curl's %{certs}
}

// CertFacts returns the facts of c.
func CertFacts(c *x509.Certificate) Cert {
	kind, bits := keyFacts(c.PublicKey)
	if bits == 0 {
		kind = c.PublicKeyAlgorithm.String() // "DSA" says more than its Go type
	}
	return Cert{
		Subject:    c.Subject.String(),
		Issuer:     c.Issuer.String(),
		KeyType:    kind,
		KeyBits:    bits,
		SigAlg:     c.SignatureAlgorithm.String(),
		NotAfter:   c.NotAfter,
		Bytes:      len(c.Raw),
		SelfSigned: bytes.Equal(c.RawIssuer, c.RawSubject) && c.CheckSignatureFrom(c) == nil,
		DER:        c.Raw,
	}
}

// KeyType names a certificate's public key as "ECDSA P-256", "RSA 2048"
// or "Ed25519"; another key type is named by its Go type.
func KeyType(pub any) string {
	kind, _ := keyFacts(pub)
	return kind
}

// keyFacts names a public key and gives its size in bits (the RSA modulus,
// the ECDSA curve, Ed25519's 256); 0 bits for a key of another kind.
func keyFacts(pub any) (string, int) {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name, k.Curve.Params().BitSize
	case *rsa.PublicKey:
		return "RSA " + strconv.Itoa(k.N.BitLen()), k.N.BitLen()
	case ed25519.PublicKey:
		return "Ed25519", 256
	}
	return fmt.Sprintf("%T", pub), 0
}
