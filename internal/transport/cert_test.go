package transport

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestKeyType(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ed, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  any
		want string
	}{
		{&ec.PublicKey, "ECDSA P-384"},
		{&rk.PublicKey, "RSA 1024"},
		{ed, "Ed25519"},
		{"not a key", "string"},
	}
	for _, tt := range tests {
		if got := KeyType(tt.key); got != tt.want {
			t.Errorf("KeyType(%T) = %q; want %q", tt.key, got, tt.want)
		}
	}
}

// TestCertFacts: the facts of a self-signed root and of a leaf it issued,
// from certificates made here.
func TestCertFacts(t *testing.T) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leafKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	notAfter := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: notAfter.Add(-time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "leaf.test"},
		NotBefore: notAfter.Add(-time.Hour), NotAfter: notAfter}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(leafDER)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cert *x509.Certificate
		want Cert
	}{
		{ca, Cert{Subject: "CN=test CA", Issuer: "CN=test CA", KeyType: "ECDSA P-256", KeyBits: 256, SigAlg: "ECDSA-SHA256",
			NotAfter: notAfter, Bytes: len(caDER), SelfSigned: true}},
		{leaf, Cert{Subject: "CN=leaf.test", Issuer: "CN=test CA", KeyType: "RSA 2048", KeyBits: 2048, SigAlg: "ECDSA-SHA256",
			NotAfter: notAfter, Bytes: len(leafDER)}},
	}
	for _, tt := range tests {
		got := CertFacts(tt.cert)
		if string(got.DER) != string(tt.cert.Raw) {
			t.Errorf("CertFacts(%s).DER is not the certificate", tt.want.Subject)
		}
		got.DER = nil
		if !got.NotAfter.Equal(tt.want.NotAfter) {
			t.Errorf("CertFacts(%s).NotAfter = %v; want %v", tt.want.Subject, got.NotAfter, tt.want.NotAfter)
		}
		got.NotAfter = tt.want.NotAfter
		if !cmp.Equal(got, tt.want) {
			t.Errorf("CertFacts = %+v; want %+v", got, tt.want)
		}
	}
}
