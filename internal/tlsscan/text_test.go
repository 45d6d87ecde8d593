package tlsscan

import (
	"strings"
	"testing"
	"time"
)

func TestCostText(t *testing.T) {
	oneRTT := Cost{RoundTrips: 1, Time: Duration(20 * time.Millisecond), Per: "per full handshake"}
	tests := []struct {
		name   string
		cost   Cost
		rtt    time.Duration
		want   string
		absent string
	}{
		{"network RTT", oneRTT, 20 * time.Millisecond, "+1 RTT (20.00 ms at the measured RTT), per full handshake", ""},
		{"loopback RTT", oneRTT, 40 * time.Microsecond, "not priced: the measured RTT (0.04 ms) is below 0.50 ms", "+1"},
		{"bytes only, loopback", Cost{Bytes: 900, Per: "per full handshake"}, 40 * time.Microsecond, "900 bytes, per full handshake", "round trip"},
	}
	for _, tt := range tests {
		got := costText(tt.cost, Duration(tt.rtt))
		if !strings.Contains(got, tt.want) || tt.absent != "" && strings.Contains(got, tt.absent) {
			t.Errorf("%s: costText(%+v, %v) = %q; want it to hold %q and not %q", tt.name, tt.cost, tt.rtt, got, tt.want, tt.absent)
		}
	}
}

// TestResumptionLineShowsNoZeroLifetime: a lifetime is shown only for a
// ticket the server issued; a server without tickets, or one not asked,
// shows no "0 s".
func TestResumptionLineShowsNoZeroLifetime(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		res  Resumption
		want string
	}{
		{Resumption{TLS12SessionID: &no, TLS12Ticket: &no}, "TLS 1.2 session ID no, ticket no; TLS 1.3 PSK not checked"},
		{Resumption{TLS12SessionID: &no, TLS12Ticket: &yes, TLS13PSK: &yes, TLS13TicketLifetime: 300},
			"TLS 1.2 session ID no, ticket yes (no lifetime hint); TLS 1.3 PSK yes (lifetime 300 s)"},
		{Resumption{TLS12SessionID: &yes, TLS12Ticket: &yes, TLS12TicketHint: 7200, TLS13PSK: &no},
			"TLS 1.2 session ID yes, ticket yes (lifetime hint 7200 s); TLS 1.3 PSK no"},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeResumption(&b, &Report{Resumption: tt.res})
		if got := b.String(); !strings.Contains(got, tt.want) || strings.Contains(got, " 0 s") {
			t.Errorf("writeResumption(%+v) = %q; want %q and no 0 s", tt.res, got, tt.want)
		}
	}
}
