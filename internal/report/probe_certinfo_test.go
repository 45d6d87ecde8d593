package report

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestCurlCertInfo: %{certs} writes a certificate as curl 7.88 with
// OpenSSL does (without the extensions and signature lines): the name
// attributes in the certificate's order in OpenSSL's one-line form,
// OpenSSL's algorithm names and dates, and the PEM.
func TestCurlCertInfo(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// O before CN, as OpenSSL keeps it; pkix.Name would reorder.
	subject, err := asn1.Marshal(pkix.RDNSequence{
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 6}, Value: "JP"}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 10}, Value: "Acme, Inc."}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: "x.test"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(0x08ca46),
		RawSubject:   subject,
		NotBefore:    time.Date(2026, 11, 3, 13, 48, 45, 0, time.UTC),
		NotAfter:     time.Date(2026, 11, 30, 4, 5, 6, 0, time.UTC),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	tl := h2Fresh()
	tl.TLS.Chain = []transport.Cert{{DER: der}, {Subject: "CN=no bytes", Issuer: "CN=ca", KeyType: "RSA 2048", SigAlg: "SHA256-RSA",
		NotAfter: time.Date(2027, 1, 2, 3, 4, 5, 0, time.UTC)}}
	got, _, _ := execute(t, "%{certs}", WriteOutInput{Hops: []probe.Timeline{tl}})
	want := `Subject:C = JP, O = "Acme, Inc.", CN = x.test
Issuer:C = JP, O = "Acme, Inc.", CN = x.test
Version:2
Serial Number:08ca46
Signature Algorithm:ecdsa-with-SHA256
Public Key Algorithm:id-ecPublicKey
Start date:Nov  3 13:48:45 2026 GMT
Expire date:Nov 30 04:05:06 2026 GMT
` + string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})) +
		`Subject:CN=no bytes
Issuer:CN=ca
Signature Algorithm:SHA256-RSA
Public Key Algorithm:RSA 2048
Expire date:Jan  2 03:04:05 2027 GMT
`
	if got != want {
		t.Errorf("%%{certs}:\n%s\nwant:\n%s", got, want)
	}
	if n, _, _ := execute(t, "%{num_certs}", WriteOutInput{Hops: []probe.Timeline{tl}}); n != "2" {
		t.Errorf("num_certs = %s; want 2", n)
	}
}
