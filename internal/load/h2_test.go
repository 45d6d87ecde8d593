package load

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// startNoALPN starts a TLS server that negotiates no application
// protocol, as a server without HTTP/2 and ALPN does, and drains each
// connection until the client closes it. (nginx without http2 rejects the
// handshake instead, and Go's HTTP server always offers h2.)
func startNoALPN(t *testing.T) (url string, caPEM []byte) {
	s := labtest.NewMisbehaving(t, labtest.TLS(labtest.Silent))
	return "https://" + s.Addr, s.CA.CertPEM
}

// TestHTTP2Refused runs HTTP/2 against a server that negotiates no
// ALPN: every connection fails its check and counts as a failed
// connection, not as an opened one with a handshake, on both HTTP/2
// client paths; the report says so.
func TestHTTP2Refused(t *testing.T) {
	url, caPEM := startNoALPN(t)
	for _, rate := range []float64{0, 200} {
		cfg := Config{Targets: []Target{{URL: url + "/"}}, Protocol: transport.HTTP2, Conns: 2, Requests: 10,
			Rate: rate, TLS: clientTLS(t, caPEM)}
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Connections != 0 || res.Handshakes != 0 || res.DialErrors != 10 || res.Errors != 10 {
			t.Errorf("rate %v: %d connections, %d handshakes, %d failed connections, %d errors %v; want 0, 0, 10, 10",
				rate, res.Connections, res.Handshakes, res.DialErrors, res.Errors, res.ErrorCounts)
		}
	}
}

// TestHTTP3Refused runs HTTP/3 against a UDP port where nothing listens:
// the kernel's ICMP port unreachable fails each dial at once, so the run
// ends in well under one QUIC handshake timeout, every request counted
// as a failed connection.
func TestHTTP3Refused(t *testing.T) {
	addr := labtest.ClosedAddr(t, "udp")
	start := time.Now()
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: "https://" + addr + "/"}}, Protocol: transport.HTTP3,
		Conns: 1, Requests: 3, TLS: transport.TLS{ServerName: "localhost"}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Errors != 3 || res.DialErrors != 3 {
		t.Errorf("%d errors, %d failed connections %v; want 3 and 3", res.Errors, res.DialErrors, res.ErrorCounts)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("3 refused HTTP/3 dials took %v; want well under a QUIC handshake timeout each", d)
	}
	for msg := range res.ErrorCounts {
		if !strings.Contains(msg, "connection refused") {
			t.Errorf("error %q; want the refusal", msg)
		}
	}
}
