package tlsscan

import (
	"slices"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// baseReport is a clean report of a TLS 1.2 and 1.3 server, to which the
// rule tests add one problem each.
func baseReport() *Report {
	yes := true
	return &Report{
		RTT: Duration(20 * time.Millisecond),
		Enumeration: &Enumeration{Versions: []VersionResult{
			{Version: VersionTLS12, Name: "TLS 1.2", Supported: true, Suites: []Suite{{ID: 0xC02B, Name: SuiteName(0xC02B)}}},
			{Version: VersionTLS13, Name: "TLS 1.3", Supported: true, Suites: []Suite{{ID: 0x1301, Name: SuiteName(0x1301)}}},
		}},
		Chain: Chain{Certs: []transport.Cert{{KeyType: "ECDSA P-256", KeyBits: 256, Bytes: 500}}, Bytes: 507, Trusted: true,
			NameMatch: true, Ordered: true, ExpiresIn: Duration(90 * 24 * time.Hour), OCSPServers: []string{"http://ocsp.test"}, Stapled: true},
		Resumption: Resumption{TLS12SessionID: &yes, TLS12Ticket: &yes, TLS13PSK: &yes, Version: "TLS 1.3", Attempts: 20, Resumed: 20},
		Negotiated: Negotiated{ALPN: "h2"},
		HTTP: HTTPResult{Status: 200, ContentType: "text/plain", KeepAlive: true, KeepAliveRequests: 3,
			HSTS: HSTS{Header: "x", MaxAge: 63072000, IncludeSubDomains: true, Preload: true}},
		HTTP3: HTTP3Result{Advertised: true, Port: "443", Reachable: true},
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *Report)
		want   []string
	}{
		{"clean", func(*Report) {}, nil},
		{"not stapled", func(r *Report) { r.Chain.Stapled = false }, []string{"ocsp-not-stapled"}},
		{"first flight over the initial window", func(r *Report) { r.Records.FirstFlight = initialWindow + 1 }, []string{"chain-large"}},
		{"17 of 20", func(r *Report) { r.Resumption.Resumed = 17 }, []string{"resumption-unreliable"}},
		{"QUIC unreachable", func(r *Report) { r.HTTP3.Reachable = false }, []string{"http3-unreachable"}},
		{"expiring", func(r *Report) { r.Chain.ExpiresIn = Duration(time.Hour) }, []string{"cert-expiring"}},
		{"expired", func(r *Report) { r.Chain.ExpiresIn = -1 }, []string{"cert-expired"}},
		{"SSLv3", func(r *Report) {
			r.Enumeration.Versions = append(r.Enumeration.Versions, VersionResult{Version: VersionSSL30, Name: "SSLv3", Supported: true})
		}, []string{"sslv3-enabled"}},
		{"RC4 and RSA key exchange", func(r *Report) {
			r.Enumeration.Versions[0].Suites = append(r.Enumeration.Versions[0].Suites, Suite{ID: 0x0005, Name: SuiteName(0x0005)},
				Suite{ID: 0x009C, Name: SuiteName(0x009C)})
		}, []string{"no-forward-secrecy", "weak-suites"}},
		{"short HSTS", func(r *Report) { r.HTTP.HSTS.MaxAge = 300 }, []string{"hsts-short"}},
		{"unsafe CSP", func(r *Report) {
			r.HTTP.ContentType, r.HTTP.CSP, r.HTTP.CSPUnsafe = "text/html", "script-src 'unsafe-inline'", []string{"unsafe-inline"}
		}, []string{"csp-unsafe"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := baseReport()
			tt.change(r)
			var got []string
			for _, f := range findings(r) {
				got = append(got, f.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("findings = %v; want %v", got, tt.want)
			}
		})
	}
}

func TestRoundTripCost(t *testing.T) {
	r := baseReport()
	r.Enumeration.Versions = r.Enumeration.Versions[:1] // TLS 1.2 only
	fs := findings(r)
	if len(fs) != 1 || fs[0].ID != "tls13-missing" {
		t.Fatalf("findings = %+v; want tls13-missing", fs)
	}
	if c := fs[0].Cost; c.RoundTrips != 1 || c.Time != Duration(20*time.Millisecond) {
		t.Errorf("cost = %+v; want 1 round trip = 20ms at a 20ms RTT", c)
	}
}

// TestConnectionCost: a missing HTTP/2 or keep-alive costs a new
// connection, whose round trips are TCP's and those of the handshake the
// server gave a default client: 3 with TLS 1.2, 2 with TLS 1.3.
func TestConnectionCost(t *testing.T) {
	for _, tt := range []struct {
		version string
		want    float64
	}{{"TLS 1.2", 3}, {"TLS 1.3", 2}} {
		r := baseReport()
		r.Negotiated = Negotiated{Version: tt.version, ALPN: "http/1.1"}
		r.HTTP.KeepAlive, r.HTTP.KeepAliveRequests = false, 1
		for _, id := range []string{"http2-missing", "keepalive-off"} {
			f := findingByID(findings(r), id)
			if f == nil || f.Cost.RoundTrips != tt.want || f.Cost.Time != Duration(tt.want*float64(20*time.Millisecond)) {
				t.Errorf("%s with %s: %+v; want %g round trips at a 20 ms RTT", id, tt.version, f, tt.want)
			}
		}
	}
}
