package report

import (
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

func TestAuditCost(t *testing.T) {
	oneRTT := tlsscan.Cost{RoundTrips: 1, Time: 20 * time.Millisecond, Per: "per full handshake"}
	tests := []struct {
		name   string
		cost   tlsscan.Cost
		rtt    time.Duration
		want   string
		absent string
	}{
		{"network RTT", oneRTT, 20 * time.Millisecond, "+1 RTT (20.00 ms at the measured RTT), per full handshake", ""},
		{"loopback RTT", oneRTT, 40 * time.Microsecond, "not priced: the measured RTT (0.04 ms) is below 0.50 ms", "+1"},
		{"bytes only, loopback", tlsscan.Cost{Bytes: 900, Per: "per full handshake"}, 40 * time.Microsecond, "900 bytes, per full handshake", "round trip"},
	}
	for _, tt := range tests {
		got := auditCost(tt.cost, tt.rtt)
		if !strings.Contains(got, tt.want) || tt.absent != "" && strings.Contains(got, tt.absent) {
			t.Errorf("%s: auditCost(%+v, %v) = %q; want it to hold %q and not %q", tt.name, tt.cost, tt.rtt, got, tt.want, tt.absent)
		}
	}
}

// TestResumptionLineShowsNoZeroLifetime: a lifetime is shown only for a
// ticket the server issued; a server without tickets, or one not asked,
// shows no "0 s".
func TestResumptionLineShowsNoZeroLifetime(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		res  tlsscan.Resumption
		want string
	}{
		{tlsscan.Resumption{TLS12SessionID: &no, TLS12Ticket: &no}, "TLS 1.2 session ID no, ticket no; TLS 1.3 PSK not checked"},
		{tlsscan.Resumption{TLS12SessionID: &no, TLS12Ticket: &yes, TLS13PSK: &yes, TLS13TicketLifetime: 300},
			"TLS 1.2 session ID no, ticket yes (no lifetime hint); TLS 1.3 PSK yes (lifetime 300 s)"},
		{tlsscan.Resumption{TLS12SessionID: &yes, TLS12Ticket: &yes, TLS12TicketHint: 7200, TLS13PSK: &no},
			"TLS 1.2 session ID yes, ticket yes (lifetime hint 7200 s); TLS 1.3 PSK no"},
	}
	for _, tt := range tests {
		var b strings.Builder
		auditResumption(&b, &tlsscan.Report{Resumption: tt.res})
		if got := b.String(); !strings.Contains(got, tt.want) || strings.Contains(got, " 0 s") {
			t.Errorf("auditResumption(%+v) = %q; want %q and no 0 s", tt.res, got, tt.want)
		}
	}
}

// TestAuditSummaryLines renders reports of the shapes the real audits in
// internal/tlsscan produce (an nginx with a 1024-bit DH prime, TLS 1.0
// groups, a suite without a key-exchange group, no resumption, a scan
// stopped during the enumeration) and checks the line each must show.
func TestAuditSummaryLines(t *testing.T) {
	tests := []struct {
		name string
		rep  tlsscan.Report
		want []string
		not  []string
	}{
		{"DH prime", tlsscan.Report{Enumeration: &tlsscan.Enumeration{DHBits: 1024}, Partial: true},
			[]string{"DHE suites use the server's 1024-bit prime"}, nil},
		{"TLS 1.0 groups", tlsscan.Report{Enumeration: &tlsscan.Enumeration{Groups: []tlsscan.GroupResult{
			{Version: tlsscan.VersionTLS10, Name: "x25519"}, {Version: tlsscan.VersionTLS10, Name: "secp256r1"}}}, Partial: true},
			[]string{"Groups        TLS 1.0: x25519, secp256r1\n"}, nil},
		{"no group", tlsscan.Report{Enumeration: &tlsscan.Enumeration{},
			Negotiated: tlsscan.Negotiated{Version: "TLS 1.2", Suite: "TLS_RSA_WITH_AES_128_CBC_SHA256", ALPN: "http/1.1"}},
			[]string{"Negotiated    TLS 1.2 TLS_RSA_WITH_AES_128_CBC_SHA256, ALPN http/1.1\n"}, nil},
		{"none resumed", tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, Resumption: tlsscan.Resumption{
			Version: "TLS 1.3", Attempts: 10, FullHandshake: 2 * time.Millisecond}},
			[]string{"resumed 0 of 10; handshake full 2.00 ms, resumed none\n"}, nil},
		{"partial", tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, Partial: true,
			Findings: []tlsscan.Finding{{ID: "x", Category: tlsscan.Speed}}},
			[]string{"FINDINGS not computed"}, []string{"SPEED ("}},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := Audit(&b, &tt.rep); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: report lacks %q:\n%s", tt.name, w, b.String())
			}
		}
		for _, n := range tt.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("%s: report has %q:\n%s", tt.name, n, b.String())
			}
		}
	}
}

// TestAuditHTTPWithoutResponse: when the HTTP check got no response (a
// header over the limit, a server too slow), the HTTP line says so
// instead of showing a status 0 as if the server had sent it.
func TestAuditHTTPWithoutResponse(t *testing.T) {
	var b strings.Builder
	auditHTTP(&b, &tlsscan.Report{})
	if got, want := b.String(), "HTTP          no response (see Not checked)\n"; !strings.Contains(got, want) || strings.Contains(got, "HTTP          0") ||
		strings.Contains(got, "HSTS") || strings.Contains(got, "Dotfiles") {
		t.Errorf("auditHTTP without a response = %q; want %q and no headers called missing", got, want)
	}
	b.Reset()
	auditHTTP(&b, &tlsscan.Report{HTTP: tlsscan.HTTPResult{Status: 200, ContentTypeOptions: "nosniff",
		Cookies: []tlsscan.Cookie{{Name: "sid", HTTPOnly: true}}}})
	if got, want := b.String(), "Headers       X-Content-Type-Options: nosniff; cookie sid (HttpOnly)\n"; !strings.Contains(got, want) {
		t.Errorf("auditHTTP = %q; want %q", got, want)
	}
}
