package tlsscan

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/crypto/ocsp"
)

// staplingServer is an HTTPS server whose certificate names an OCSP
// responder and which staples a real OCSP response from its handshake
// number firstStapled on (0: never), as nginx does once the fetch it
// starts on its first handshake has returned.
func staplingServer(t *testing.T, firstStapled int64) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(30 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames: []string{"localhost"}, OCSPServer: []string{"http://ocsp.httpslab.test"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	staple, err := ocsp.CreateResponse(ca.Cert, ca.Cert, ocsp.Response{Status: ocsp.Good, SerialNumber: leaf.SerialNumber,
		ThisUpdate: time.Now().Add(-time.Minute), NextUpdate: time.Now().Add(time.Hour)}, ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	var handshakes atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.TLS = &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
		if n := handshakes.Add(1); firstStapled > 0 && n >= firstStapled {
			c.OCSPStaple = staple
		}
		return c, nil
	}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the enumeration's refused offers
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, ca.Pool()
}

// TestStapleAfterFirstHandshake: a server that staples from its second
// handshake on, as a freshly started nginx does, is stapling; one that
// never staples gets ocsp-not-stapled with the handshakes looked at.
func TestStapleAfterFirstHandshake(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		firstStapled int64
		want         bool
	}{{"from the second handshake", 2, true}, {"never", 0, false}} {
		t.Run(tt.name, func(t *testing.T) {
			srv, pool := staplingServer(t, tt.firstStapled)
			u, _ := url.Parse(srv.URL)
			port, _ := strconv.Atoi(u.Port())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			rep, err := Run(ctx, Config{Host: "localhost", Port: port, Trust: transport.Trust{RootCAs: pool}, Attempts: 2})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			f := findingByID(rep.Findings, "ocsp-not-stapled")
			if rep.Chain.Stapled != tt.want || (f == nil) != tt.want {
				t.Fatalf("stapled %v, finding %+v; want stapled %v", rep.Chain.Stapled, f, tt.want)
			}
			if !tt.want && (rep.Chain.StapleHandshakes != 1+len(staplePauses) || !strings.Contains(f.Evidence, "4 full handshakes over")) {
				t.Errorf("looked at %d handshakes, evidence %q; want %d", rep.Chain.StapleHandshakes, f.Evidence, 1+len(staplePauses))
			}
		})
	}
}
