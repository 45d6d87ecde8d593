package machine

import (
	"context"
	"fmt"
	"testing"
	"time"
)

const chronyTracking = `Reference ID    : A29FC87B (time.cloudflare.com)
Stratum         : 4
Ref time (UTC)  : Tue Nov 24 05:10:12 2026
System time     : 0.000123456 seconds %s of NTP time
Last offset     : -0.000010123 seconds
RMS offset      : 0.000034567 seconds
Frequency       : 12.345 ppm slow
Residual freq   : -0.001 ppm
Skew            : 0.123 ppm
Root delay      : 0.012345678 seconds
Root dispersion : 0.000987654 seconds
Update interval : 64.2 seconds
Leap status     : %s
`

func TestParseChronyTracking(t *testing.T) {
	for _, tc := range []struct {
		dir, leap string
		want      time.Duration
		ok        bool
	}{
		{"fast", "Normal", 123456 * time.Nanosecond, true},
		{"slow", "Normal", -123456 * time.Nanosecond, true},
		{"fast", "Not synchronised", 0, false},
		{"sideways", "Normal", 0, false},
	} {
		text := fmtTracking(tc.dir, tc.leap)
		got, ok := parseChronyTracking(text)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseChronyTracking(%s, %s) = %v, %v; want %v, %v", tc.dir, tc.leap, got, ok, tc.want, tc.ok)
		}
	}
	for _, text := range []string{"", "506 Cannot talk to daemon\n", "System time : x seconds fast of NTP time\n", "System time :\n"} {
		if got, ok := parseChronyTracking(text); ok {
			t.Errorf("parseChronyTracking(%q) = %v, true; want false", text, got)
		}
	}
}

func fmtTracking(dir, leap string) string {
	return fmt.Sprintf(chronyTracking, dir, leap)
}

// TestClockOffsetBounded checks that ClockOffset answers within its
// bound on this machine, whatever it has of chrony, and that its source
// is one of the two it names.
func TestClockOffsetBounded(t *testing.T) {
	start := time.Now()
	_, source, ok := ClockOffset(context.Background())
	if took := time.Since(start); took > 3*chronyTimeout {
		t.Errorf("ClockOffset took %v; want at most about %v", took, chronyTimeout)
	}
	if ok != (source == ClockChrony) || source != ClockChrony && source != ClockNone {
		t.Errorf("ClockOffset: source %q, ok %v", source, ok)
	}
	if Hostname() == "" {
		t.Error("Hostname() is empty")
	}
}
