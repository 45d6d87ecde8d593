package labtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// HostileSubject is the subject common name and organisation of the
// HostileCert mode's certificate: terminal escapes that set the window
// title and a colour, and a CR LF that forges a line of output.
const HostileSubject = "127.0.0.1\x1b]0;pwned\x07\x1b[31m\r\nInjected: line"

// HostileCert serves TLS with a certificate, valid for 127.0.0.1 and
// localhost and issued by the server's CA, whose subject's common name and
// organisation are HostileSubject and whose organisational unit clears
// the screen; it answers every request with a 200 over HTTP/1.1.
var HostileCert = Mode{name: "hostile certificate fields", tls: true, cert: hostileCert,
	serve: func(_ context.Context, s *Misbehaving, c net.Conn) { answer(s, c, maxAnswers, okResponse) }}

// hostileCert issues the HostileCert mode's certificate.
func hostileCert(ca *lab.CA) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{CommonName: HostileSubject, Organization: []string{HostileSubject},
			OrganizationalUnit: []string{"\x1b[2J\x1b[H"}},
		NotBefore:   time.Now().Add(-time.Hour),
		NotAfter:    time.Now().Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
