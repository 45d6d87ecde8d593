//go:build !race

// The round trips of an audit behind the link leave the race detector
// out: it slows audit's own work several times, which is CPU, not the
// link's round trips. The test command runs the suite a second time
// without -race, where it runs.

package tlsscan

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/netem"
	"github.com/httpslab/httpslab/internal/transport"
)

// maxAuditRounds bounds a whole audit behind the link, in its round trips.
// Its longest chain of waits is about 14: TLS 1.2's suite search, six
// rounds of offers of two round trips each (TCP's and the ClientHello's),
// and its confirming offer. The bound leaves room for a busy machine,
// where the server and the link's forwarder answer late.
const maxAuditRounds = 20

// maxServerOrderRounds bounds the audit of the same nginx in its own
// suite order, whose order audit reads from rounds of offers after the
// search: about 13 round trips on the whole (the search's, then a round
// or two of the order, of two round trips each, its guess mostly
// OpenSSL's order: see opensslRank). The classic way, one offer after
// the other, took 73. The bound leaves as much room as maxAuditRounds.
const maxServerOrderRounds = 20

// maxDHEServerOrderRounds bounds the audit of nginx in its own order with
// DHE suites among the ECDHE ones (56 TLS 1.2 suites, a deeper search)
// and an RSA-4096 certificate, whose signatures take the server's time
// in every handshake: about 17 round trips (28.5 when the guess of the
// order did not follow OpenSSL's within the usual ranks).
const maxDHEServerOrderRounds = 24

// maxEmbeddedRounds bounds the audit of the embedded server, on Go's rule,
// whose order is read from picks too (see goRuleOrder): about 11.5 round
// trips (20.2 the classic way).
const maxEmbeddedRounds = 16

// maxShortChainRounds bounds the audits whose longest chain is the
// resumption checks': nginx with TLS 1.0 to 1.2 only (the hit rate with
// TLS 1.2 runs beside the ticket and session-ID checks: about 10.5 round
// trips, 18.3 when it waited for them), and nginx with TLS 1.3 and
// secp384r1 only (the resumption checks offer the group the server asked
// for: about 12.5 round trips, 15.6 with a HelloRetryRequest in each of
// their handshakes). It is the 15 round trips audit is held to.
const maxShortChainRounds = 15

// TestAuditRoundTrips: a whole audit, every check included, of nginx with
// every version and suite it has (scripts/audit-time.sh's target) behind
// a 100 ms link (needs root, as CI runs) takes at most maxAuditRounds
// round trips of wall time, its checks side by side, and at most
// maxServerOrderRounds with nginx's own order; with its own order, an
// RSA-4096 certificate and DHE suites with a 1024-bit prime, at most
// maxDHEServerOrderRounds; the embedded server, on Go's rule (see
// aesGCMIfClientFirst), at most maxEmbeddedRounds; with TLS 1.0 to 1.2
// only, or TLS 1.3 with secp384r1 only, at most maxShortChainRounds.
// Audits that take longer are taken again, up to three.
func TestAuditRoundTrips(t *testing.T) {
	const rtt = 100 * time.Millisecond
	const all = `
ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
ssl_ciphers ALL:@SECLEVEL=0;
ssl_session_cache shared:time:1m;
ssl_session_tickets on;`
	dh1024, _ := dhParams(t)
	tests := []struct {
		name       string
		cert       lab.KeyKind
		directives string // empty: the embedded server
		maxRounds  float64
		versions   int // supported
		tls12      int // TLS 1.2 suites, at least
	}{
		{"client order", lab.RSA2048, all, maxAuditRounds, 4, 20},
		{"server order", lab.RSA2048, all + "\nssl_prefer_server_ciphers on;", maxServerOrderRounds, 4, 20},
		{"server order, RSA 4096, DHE", lab.RSA4096, all + "\nssl_prefer_server_ciphers on;\nssl_dhparam " + dh1024 + ";", maxDHEServerOrderRounds, 4, 50},
		{"embedded server", lab.ECDSAP256, "", maxEmbeddedRounds, 2, 5},
		{"TLS 1.2 and older", lab.RSA2048, `
ssl_protocols TLSv1 TLSv1.1 TLSv1.2;
ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA:AES128-SHA:AES256-GCM-SHA384:@SECLEVEL=0;
ssl_session_cache shared:time:1m;`, maxShortChainRounds, 3, 4},
		{"TLS 1.3, secp384r1", lab.ECDSAP256, `
ssl_protocols TLSv1.3;
ssl_ecdh_curve secp384r1;
ssl_session_cache shared:time:1m;`, maxShortChainRounds, 1, 0},
	}
	l, err := netem.Start(context.Background(), netem.Config{RTT: rtt})
	if err != nil {
		t.Fatalf("starting a link of %v: %v", rtt, err)
	}
	t.Cleanup(func() { _ = l.Close() })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var httpsURL string
			if tt.directives == "" {
				httpsURL = labtest.StartServer(t, lab.Config{Cert: tt.cert, Host: l.ServerIP.String(), Listen: l.Listen, ListenPacket: l.ListenPacket}).HTTPSURL
			} else {
				httpsURL = labtest.StartNginx(t, lab.NginxConfig{Cert: tt.cert, NoDefaults: true,
					Host: l.ServerIP.String(), Command: l.Command, Listen: l.Listen, TLSDirectives: tt.directives}).HTTPSURL
			}
			auditRoundTrips(t, httpsURL, rtt, tt.maxRounds, tt.versions, tt.tls12)
		})
	}
}

// auditRoundTrips audits the server at url behind a link of rtt, up to
// three times, until an audit takes at most maxRounds round trips; the
// server has versions versions, and at least tls12 suites in TLS 1.2.
func auditRoundTrips(t *testing.T, httpsURL string, rtt time.Duration, maxRounds float64, versions, tls12 int) {
	u, _ := url.Parse(httpsURL)
	port, _ := strconv.Atoi(u.Port())
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		// The certificate names 127.0.0.1, not the link's address.
		rep, err := Run(ctx, Config{Host: u.Hostname(), Port: port, Trust: transport.Trust{Insecure: true}})
		cancel()
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if rep.RTT < rtt*95/100 {
			t.Fatalf("the audit measured a round trip of %v on a %v link", rep.RTT, rtt)
		}
		if len(rep.Enumeration.Supported()) != versions || len(rep.Enumeration.Version(VersionTLS12).Suites) < tls12 {
			t.Fatalf("versions %v, TLS 1.2 suites %d; want %d versions and %d suites at least", rep.Enumeration.Supported(), len(rep.Enumeration.Version(VersionTLS12).Suites), versions, tls12)
		}
		rounds := float64(rep.Elapsed) / float64(rep.RTT)
		t.Logf("audit %d: %v, %.1f round trips of %v, %d connections", attempt, rep.Elapsed.Round(time.Millisecond), rounds, rep.RTT.Round(time.Millisecond), rep.Connections)
		if rounds <= maxRounds {
			return
		}
		if attempt == 3 {
			t.Errorf("each of %d audits took more than %g round trips; the last %.1f", attempt, maxRounds, rounds)
			return
		}
	}
}
