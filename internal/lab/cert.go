package lab

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// KeyKind names a certificate key type the lab can generate.
type KeyKind string

// Key kinds for generated certificates.
const (
	ECDSAP256 KeyKind = "ecdsa-p256"
	ECDSAP384 KeyKind = "ecdsa-p384"
	RSA2048   KeyKind = "rsa-2048"
	RSA4096   KeyKind = "rsa-4096"
)

// KeyKinds lists the accepted key kinds, default first.
var KeyKinds = []KeyKind{ECDSAP256, ECDSAP384, RSA2048, RSA4096}

// ParseKeyKind checks a user-given key kind; the empty string means ECDSA P-256.
func ParseKeyKind(s string) (KeyKind, error) {
	if s == "" {
		return ECDSAP256, nil
	}
	for _, k := range KeyKinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown certificate kind %q (want one of %v)", s, KeyKinds)
}

func (k KeyKind) generate() (crypto.Signer, error) {
	switch k {
	case ECDSAP256, "":
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case ECDSAP384:
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case RSA2048:
		return rsa.GenerateKey(rand.Reader, 2048)
	case RSA4096:
		return rsa.GenerateKey(rand.Reader, 4096)
	}
	return nil, fmt.Errorf("unknown certificate kind %q", k)
}

// CA is a private certificate authority made for one lab run. Clients
// trust it through its PEM file, so certificates are verified for real.
type CA struct {
	Cert    *x509.Certificate
	Key     crypto.Signer
	CertPEM []byte
}

// NewCA generates a self-signed CA whose key is of the given kind.
func NewCA(kind KeyKind) (*CA, error) {
	key, err := kind.generate()
	if err != nil {
		return nil, fmt.Errorf("generating CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "httpslab test CA", Organization: []string{"httpslab"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(365 * 24 * time.Hour), // outlives its 90-day leaves
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            1,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("creating CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing CA certificate: %w", err)
	}
	return &CA{Cert: cert, Key: key, CertPEM: pemBlock("CERTIFICATE", der)}, nil
}

// NewIntermediate creates an intermediate CA signed by ca, whose key is of
// the given kind: leaves it issues verify against ca only when the server
// sends the intermediate with them.
func (ca *CA) NewIntermediate(kind KeyKind) (*CA, error) {
	key, err := kind.generate()
	if err != nil {
		return nil, fmt.Errorf("generating intermediate CA key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "httpslab test intermediate CA", Organization: []string{"httpslab"}},
		NotBefore:             ca.Cert.NotBefore,
		NotAfter:              ca.Cert.NotAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, fmt.Errorf("creating intermediate CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing intermediate CA certificate: %w", err)
	}
	return &CA{Cert: cert, Key: key, CertPEM: pemBlock("CERTIFICATE", der)}, nil
}

// Leaf is a server certificate issued by a CA, with its PEM encodings.
type Leaf struct {
	TLS     tls.Certificate
	CertPEM []byte // the leaf certificate only
	KeyPEM  []byte // PKCS#8 private key
}

// Issue creates a leaf certificate of the given kind for the names and IP
// addresses in hosts. The chain sent by servers holds the leaf only; the
// CA is the trust anchor and is not sent.
func (ca *CA) Issue(kind KeyKind, hosts ...string) (*Leaf, error) {
	return ca.IssueValid(kind, time.Now().Add(-time.Hour), time.Now().Add(90*24*time.Hour), hosts...)
}

// IssueValid is Issue with the certificate valid from notBefore to
// notAfter: an expired or not yet valid certificate, for tests of how
// clients report it.
func (ca *CA) IssueValid(kind KeyKind, notBefore, notAfter time.Time, hosts ...string) (*Leaf, error) {
	key, err := kind.generate()
	if err != nil {
		return nil, fmt.Errorf("generating %s key: %w", kind, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: firstOr(hosts, "localhost"), Organization: []string{"httpslab"}},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if _, ok := key.(*rsa.PrivateKey); ok {
		tmpl.KeyUsage |= x509.KeyUsageKeyEncipherment
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		return nil, fmt.Errorf("creating leaf certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding leaf key: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parsing leaf certificate: %w", err)
	}
	return &Leaf{
		TLS:     tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		CertPEM: pemBlock("CERTIFICATE", der),
		KeyPEM:  pemBlock("PRIVATE KEY", pkcs8),
	}, nil
}

// DefaultHosts are the names a lab leaf certificate is valid for.
var DefaultHosts = []string{"localhost", "127.0.0.1", "::1", "httpslab.test"}

// Pool returns a certificate pool that trusts only this CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// WriteFile writes the CA certificate to path, readable by the owner only.
func (ca *CA) WriteFile(path string) error {
	if err := os.WriteFile(path, ca.CertPEM, 0o600); err != nil {
		return fmt.Errorf("writing CA certificate: %w", err)
	}
	return nil
}

// Save writes the CA certificate to path, or to a file in a private
// temporary directory when path is empty, for clients in other processes
// (--cacert). It returns where it went and a function that removes the
// temporary directory (a no-op for a path given).
func (ca *CA) Save(path string) (string, func(), error) {
	if path != "" {
		return path, func() {}, ca.WriteFile(path)
	}
	dir, err := PrivateDir("httpslab-")
	if err != nil {
		return "", nil, err
	}
	remove := func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "ca.pem")
	if err := ca.WriteFile(path); err != nil {
		remove()
		return "", nil, err
	}
	return path, remove, nil
}

// PrivateDir creates a private (0700) temporary directory for lab files.
func PrivateDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", fmt.Errorf("creating temporary directory: %w", err)
	}
	return dir, nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// serial is a random 128-bit serial number: more than the 64 bits of
// randomness public CAs must put in theirs, so that lab certificates do
// not set off audit's check for it.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n.SetBit(n, 126, 1) // 127 bits long, never short by chance
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}
