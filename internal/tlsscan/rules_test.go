package tlsscan

import (
	"crypto/x509"
	"math/big"
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
			{Version: VersionTLS12, Name: "TLS 1.2", Supported: true, Suites: []Suite{{ID: 0xC02B, Name: SuiteName(0xC02B)}}, ServerOrder: true},
			{Version: VersionTLS13, Name: "TLS 1.3", Supported: true, Suites: []Suite{{ID: 0x1301, Name: SuiteName(0x1301)}}},
		}},
		Chain: Chain{Certs: []transport.Cert{{KeyType: "ECDSA P-256", KeyBits: 256, Bytes: 500}}, Bytes: 507, Trusted: true,
			NameMatch: true, Ordered: true, ExpiresIn: Duration(90 * 24 * time.Hour), OCSPServers: []string{"http://ocsp.test"}, Stapled: true},
		Resumption: Resumption{TLS12SessionID: &yes, TLS12Ticket: &yes, TLS13PSK: &yes, Version: "TLS 1.3", Attempts: 20, Resumed: 20},
		Negotiated: Negotiated{ALPN: "h2"},
		HTTP: HTTPResult{Status: 200, ContentType: "text/plain", KeepAlive: true, KeepAliveRequests: 3, ContentTypeOptions: "nosniff",
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
		{"expiring in 20 days", func(r *Report) { r.Chain.ExpiresIn = Duration(20 * 24 * time.Hour) }, []string{"cert-expiring"}},
		{"short serial", func(r *Report) {
			r.Chain.leaf = &x509.Certificate{SerialNumber: big.NewInt(0x1234), OCSPServer: []string{"x"}}
		},
			[]string{"cert-serial-short"}},
		{"no revocation", func(r *Report) { r.Chain.leaf = &x509.Certificate{SerialNumber: new(big.Int).Lsh(big.NewInt(1), 100)} },
			[]string{"cert-no-revocation"}},
		{"compressed HTML", func(r *Report) {
			r.HTTP.ContentType, r.HTTP.ContentEncoding, r.HTTP.CSP = "text/html", "br", "default-src 'self'; frame-ancestors 'self'"
			r.HTTP.ReferrerPolicy, r.HTTP.PermissionsPolicy = "no-referrer", "camera=()"
		}, []string{"breach"}},
		{"HTML without headers", func(r *Report) {
			r.HTTP.ContentType, r.HTTP.CSP, r.HTTP.ContentTypeOptions = "text/html", "default-src 'self'", ""
		},
			[]string{"framing-allowed", "nosniff-missing", "permissions-policy-missing", "referrer-policy-missing"}},
		{"cookie without Secure", func(r *Report) { r.HTTP.Cookies = []Cookie{{Name: "a", HTTPOnly: true, SameSite: "Lax"}} },
			[]string{"cookie-flags"}},
		{"3DES in TLS 1.0", func(r *Report) {
			r.Enumeration.Versions = append(r.Enumeration.Versions, VersionResult{Version: VersionTLS10, Name: "TLS 1.0", Supported: true,
				Suites: []Suite{{ID: 0x000A, Name: SuiteName(0x000A)}}})
		}, []string{"tls1.0-enabled", "weak-suites"}},
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
		}, []string{"csp-unsafe", "framing-allowed", "permissions-policy-missing", "referrer-policy-missing"}},
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
			fs := findings(r)
			if f := findingByID(fs, "cert-expiring"); f != nil && (f.Severity == High) != (r.Chain.ExpiresIn < Duration(7*24*time.Hour)) {
				t.Errorf("cert-expiring in %v is %s; want high under 7 days, medium under 30", time.Duration(r.Chain.ExpiresIn), f.Severity)
			}
			if f := findingByID(fs, "tls1.0-enabled"); f != nil && !slices.Equal(f.Attacks, []string{"BEAST"}) {
				t.Errorf("TLS 1.0 with a CBC suite names %v; want BEAST", f.Attacks)
			}
			if f := findingByID(fs, "weak-suites"); f != nil && tt.name == "3DES in TLS 1.0" && !slices.Contains(f.Attacks, "SWEET32") {
				t.Errorf("3DES names %v; want SWEET32", f.Attacks)
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
