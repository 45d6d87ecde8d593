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
