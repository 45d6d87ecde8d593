//go:build !race

// These tests make 0-RTT requests over HTTP/3. quic-go races with itself
// when a 0-RTT connection opens streams while the handshake applies the
// server's transport parameters (quic-go issue #4303, open), so a binary
// built with -race leaves them out; the test command runs the suite a
// second time without -race, where they run.

package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestAuditEmbedded audits the embedded Go server: HTTP/2 and HTTP/3
// with 0-RTT, Go's own TLS 1.2 suites (CBC ones among them), tickets but
// no session-ID cache, HSTS without preload, a plain port that serves.
func TestAuditEmbedded(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	pool := x509.NewCertPool()
	pool.AddCert(s.CA.Cert)
	u, _ := url.Parse(s.HTTPSURL)
	pu, _ := url.Parse(s.HTTPURL)
	port, _ := strconv.Atoi(u.Port())
	plain, _ := strconv.Atoi(pu.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{Host: u.Hostname(), Port: port, HTTPPort: plain, Trust: transport.Trust{RootCAs: pool}, Attempts: 5})
	if err != nil {
		t.Fatalf("Run(%s): %v", s.HTTPSURL, err)
	}
	want := []string{"cbc-suites", "cert-no-revocation", "compression-off", "csp-missing", "early-data", "framing-allowed",
		"hsts-not-preloadable", "http-no-redirect", "nosniff-missing", "ocsp-no-responder", "permissions-policy-missing",
		"referrer-policy-missing"}
	if diff := cmp.Diff(want, ids(rep)); diff != "" {
		t.Errorf("finding ids (-want +got):\n%s\nnot checked: %v", diff, rep.NotChecked)
	}
	h3 := rep.HTTP3
	if !h3.Advertised || !h3.Reachable || !h3.Resumed || !h3.EarlyData {
		t.Errorf("HTTP/3 %+v; want advertised, reachable, resumed, 0-RTT accepted", h3)
	}
	res := rep.Resumption
	if res.TLS12SessionID == nil || *res.TLS12SessionID || res.TLS12Ticket == nil || !*res.TLS12Ticket {
		t.Errorf("TLS 1.2 resumption by ID %v, by ticket %v; want false, true (Go servers keep no session cache)",
			res.TLS12SessionID, res.TLS12Ticket)
	}
	// The server counts the handshakes it resumed: it must have seen at
	// least the hits audit claims.
	if st := s.Stats(); st.Resumed < int64(res.Resumed) || res.Resumed != res.Attempts {
		t.Errorf("audit resumed %d of %d, server counted %d resumed", res.Resumed, res.Attempts, st.Resumed)
	}
	// Go servers accept the post-quantum hybrid group in TLS 1.3.
	if !slices.ContainsFunc(rep.Enumeration.Groups, func(g GroupResult) bool {
		return g.Version == VersionTLS13 && g.ID == 0x11EC
	}) {
		t.Errorf("groups %+v; want X25519MLKEM768 (0x11EC) in TLS 1.3", rep.Enumeration.Groups)
	}
	if rep.Negotiated.ALPN != "h2" || !slices.Contains(rep.Enumeration.Supported(), VersionTLS13) {
		t.Errorf("ALPN %q, versions %v; want h2 and TLS 1.3", rep.Negotiated.ALPN, rep.Enumeration.Supported())
	}
}

// TestAuditEmbeddedOrder: Go's server picks by its own order, with AES-GCM
// first only for a client that lists AES-GCM first (on a machine with AES
// hardware, as this one must be); audit says so for TLS 1.2 and 1.3
// instead of "client's order".
func TestAuditEmbeddedOrder(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	u, _ := url.Parse(s.HTTPSURL)
	p := newProber(net.JoinHostPort(u.Hostname(), u.Port()), u.Hostname(), 4, 5*time.Second, &countingDialer{})
	e, err := enumerate(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []uint16{VersionTLS12, VersionTLS13} {
		vr := e.Version(v)
		if vr == nil || !vr.ServerOrder || !vr.AESGCMIfClientFirst {
			t.Errorf("%s: %+v; want the server's order with AES-GCM first for a client that lists it first", tls.VersionName(v), vr)
		}
	}
}
