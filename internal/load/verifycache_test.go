package load

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/transport"
)

// handshakeServer is a raw TLS server on loopback that completes each
// handshake with cert and closes the connection.
func handshakeServer(t *testing.T, cert tls.Certificate, maxVersion uint16) string {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: maxVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if c.(*tls.Conn).Handshake() == nil {
					c.Read(make([]byte, 1)) // until the client closes
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// verifyingEndpoint is a run's endpoint for https://localhost:port/ that
// trusts ca and connects to addr.
func verifyingEndpoint(t *testing.T, ca *lab.CA, addr string) *endpoint {
	t.Helper()
	_, port, _ := net.SplitHostPort(addr)
	cfg := Config{Targets: []Target{{URL: "https://localhost:" + port + "/"}}, Mode: transport.Fresh,
		TLS: transport.TLS{Trust: transport.Trust{RootCAs: ca.Pool()}}}
	ep, err := newEndpoint(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ep.addrs = []string{addr}
	if ep.verify == nil {
		t.Fatal("a verifying run has no verification cache")
	}
	return ep
}

func handshake(ep *endpoint, addr string) error {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer nc.Close()
	tc := tls.Client(nc, ep.tls)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return tc.HandshakeContext(ctx)
}

func testCA(t *testing.T) *lab.CA {
	t.Helper()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func issue(t *testing.T, ca *lab.CA, notAfter time.Time) *lab.Leaf {
	t.Helper()
	leaf, err := ca.IssueValid(lab.ECDSAP256, time.Now().Add(-time.Hour), notAfter, lab.DefaultHosts...)
	if err != nil {
		t.Fatal(err)
	}
	return leaf
}

// A server that presents a chain the cache holds, but signs the handshake
// with another key, is refused: the cache replaces the chain's
// verification, never the handshake's signature check.
func TestVerifyCacheRefusesChainWithoutKey(t *testing.T) {
	ca := testCA(t)
	leaf := issue(t, ca, time.Now().Add(24*time.Hour))
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	impostor := leaf.TLS
	impostor.PrivateKey = other
	for _, v := range []uint16{tls.VersionTLS13, tls.VersionTLS12} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			good := handshakeServer(t, leaf.TLS, v)
			bad := handshakeServer(t, impostor, v)
			ep := verifyingEndpoint(t, ca, good)
			for range 3 {
				if err := handshake(ep, good); err != nil {
					t.Fatalf("genuine server: %v", err)
				}
			}
			if n := ep.verify.verified.Load(); n != 1 {
				t.Fatalf("3 handshakes with one chain verified it %d times, want 1", n)
			}
			err := handshake(ep, bad)
			if err == nil {
				t.Fatal("a server without the leaf's private key was accepted")
			}
			if !strings.Contains(err.Error(), "signature") {
				t.Errorf("impostor refused with %v, want a signature error", err)
			}
			if n := ep.verify.verified.Load(); n != 1 {
				t.Errorf("the impostor's chain was verified again (%d), so the cache was not what let it through", n)
			}
		})
	}
}

// An expired chain is refused when first seen, and a cached result does
// not outlive the chain's expiry nor verifyTTL.
func TestVerifyCacheExpiry(t *testing.T) {
	ca := testCA(t)
	expired := issue(t, ca, time.Now().Add(-time.Minute))
	ep := verifyingEndpoint(t, ca, handshakeServer(t, expired.TLS, 0))
	err := handshake(ep, ep.addrs[0])
	var invalid x509.CertificateInvalidError
	if !errors.As(err, &invalid) || invalid.Reason != x509.Expired {
		t.Fatalf("expired chain: got %v, want x509's Expired", err)
	}

	soon := time.Now().Add(30 * time.Second)
	leaf := issue(t, ca, soon)
	c := newVerifyCache(ca.Pool())
	now := time.Now()
	c.now = func() time.Time { return now }
	chain := []*x509.Certificate{leaf.TLS.Leaf}
	for range 2 {
		if err := c.verify(chain, "localhost"); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.verified.Load(); n != 1 {
		t.Fatalf("verified %d times, want 1", n)
	}
	now = soon.Add(time.Second)
	if err := c.verify(chain, "localhost"); !errors.As(err, &invalid) || invalid.Reason != x509.Expired {
		t.Fatalf("cached chain past its expiry: got %v, want x509's Expired", err)
	}

	long := []*x509.Certificate{issue(t, ca, time.Now().Add(24*time.Hour)).TLS.Leaf}
	now = time.Now()
	c.verify(long, "localhost")
	before := c.verified.Load()
	now = now.Add(verifyTTL - time.Second)
	c.verify(long, "localhost")
	now = now.Add(2 * time.Second)
	c.verify(long, "localhost")
	if n := c.verified.Load() - before; n != 1 {
		t.Errorf("across %v the chain was verified again %d times, want once", verifyTTL, n)
	}
}

// A chain cached for one name is not accepted for another.
func TestVerifyCacheName(t *testing.T) {
	ca := testCA(t)
	leaf, err := ca.Issue(lab.ECDSAP256, "a.httpslab.test")
	if err != nil {
		t.Fatal(err)
	}
	c := newVerifyCache(ca.Pool())
	chain := []*x509.Certificate{leaf.TLS.Leaf}
	if err := c.verify(chain, "a.httpslab.test"); err != nil {
		t.Fatal(err)
	}
	err = c.verify(chain, "b.httpslab.test")
	var host x509.HostnameError
	if !errors.As(err, &host) {
		t.Fatalf("cached chain for another name: got %v, want x509's HostnameError", err)
	}
	if err := c.verify(chain, "a.httpslab.test"); err != nil {
		t.Fatalf("the failure for another name spoilt the cached one: %v", err)
	}
}

// Concurrent first handshakes share one verification (run with -race).
func TestVerifyCacheConcurrent(t *testing.T) {
	ca := testCA(t)
	leaf := issue(t, ca, time.Now().Add(24*time.Hour))
	ep := verifyingEndpoint(t, ca, handshakeServer(t, leaf.TLS, 0))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if err := handshake(ep, ep.addrs[0]); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := ep.verify.verified.Load(); n != 1 {
		t.Errorf("16 concurrent handshakes verified the chain %d times, want 1", n)
	}
}

// A chain verified before is found without allocating: the cache is
// consulted on every handshake.
func TestVerifyCacheHitAllocs(t *testing.T) {
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(lab.ECDSAP256, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(leaf.TLS.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	c := newVerifyCache(ca.Pool())
	certs := []*x509.Certificate{cert}
	if err := c.verify(certs, "localhost"); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := c.verify(certs, "localhost"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 || c.verified.Load() != 1 {
		t.Errorf("a cached chain: %v allocations per handshake, %d verifications; want 0 and 1", allocs, c.verified.Load())
	}
}
