package netem

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseBandwidth(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"10mbit", 10_000_000},
		{"1.5Mbps", 1_500_000},
		{"500kbit", 500_000},
		{"500 kbit", 500_000},
		{"2gbit", 2_000_000_000},
		{"1.6M", 1_600_000},
		{"768k", 768_000},
		{"64000", 64_000},
		{"0", 0},
		{"1MB/s", 8_000_000},
		{"2MBps", 16_000_000},
		{"100bps", 100},
		{"10MBIT", 10_000_000},
	}
	for _, tt := range tests {
		got, err := ParseBandwidth(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseBandwidth(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "fast", "-1mbit", "mbit", "1.2.3k", "NaN", "Inf", "2000gbit"} {
		if got, err := ParseBandwidth(bad); err == nil {
			t.Errorf("ParseBandwidth(%q) = %d; want an error", bad, got)
		}
	}
}

func TestFormatBandwidthRoundTrips(t *testing.T) {
	for _, bps := range []int64{1, 999, 1000, 768_000, 1_600_000, 9_000_000, 25_000_000, 1_000_000_000} {
		s := FormatBandwidth(bps)
		got, err := ParseBandwidth(s)
		if err != nil || got != bps {
			t.Errorf("ParseBandwidth(FormatBandwidth(%d) = %q) = %d, %v; want %d", bps, s, got, err, bps)
		}
	}
}

// FuzzParseBandwidth feeds arbitrary strings: ParseBandwidth must never
// panic, never return a negative or absurd rate, and what it accepts must
// print and parse back to the same rate.
func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"10mbit", "1.5Mbps", "500kbit", "1MB/s", "0", "1e3k", " 2 g ", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bps, err := ParseBandwidth(s)
		if err != nil {
			return
		}
		if bps < 0 || bps > 1e12 {
			t.Fatalf("ParseBandwidth(%q) = %d; want 0..1e12", s, bps)
		}
		if bps == 0 {
			return
		}
		back, err := ParseBandwidth(FormatBandwidth(bps))
		if err != nil || back != bps {
			t.Fatalf("ParseBandwidth(FormatBandwidth(%d)) = %d, %v", bps, back, err)
		}
	})
}

func TestProfile(t *testing.T) {
	for _, name := range ProfileNames {
		c, err := Profile(strings.ToUpper(name))
		if err != nil {
			t.Fatalf("Profile(%q): %v", name, err)
		}
		if err := c.Validate(); err != nil || c.RTT <= 0 || c.Bandwidth <= 0 || c.Upload <= 0 {
			t.Errorf("Profile(%q) = %+v (%v); want a valid link with RTT and rates", name, c, err)
		}
	}
	if c, _ := Profile("3g"); c.RTT != 300*time.Millisecond || c.Bandwidth != 1_600_000 {
		t.Errorf("Profile(3g) = %+v; want WebPageTest's 300 ms, 1.6 Mbit/s", c)
	}
	if _, err := Profile("5g"); err == nil || !strings.Contains(err.Error(), "satellite") {
		t.Errorf("Profile(5g) error = %v; want one listing the profiles", err)
	}
	if len(Profiles) != len(ProfileNames) {
		t.Errorf("%d profiles but %d names", len(Profiles), len(ProfileNames))
	}
}

func TestValidate(t *testing.T) {
	good := []Config{{}, {RTT: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01, Bandwidth: 10e6}}
	for _, c := range good {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v; want nil", c, err)
		}
	}
	bad := []Config{
		{RTT: -1}, {RTT: 2 * time.Minute}, {RTT: time.Millisecond, Jitter: 2 * time.Millisecond},
		{Loss: 1}, {Loss: -0.1}, {Bandwidth: -5}, {Bandwidth: 100}, {Queue: -1},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v.Validate() = nil; want an error", c)
		}
	}
}

func TestConfigString(t *testing.T) {
	c := Config{RTT: 50 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01, Bandwidth: 10e6, Upload: 2e6}
	want := "rtt 50ms, jitter 5ms, loss 1%, bandwidth 10mbit, upload 2mbit"
	if got := c.String(); got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestOwnerPID(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		ok   bool
	}{
		{"httpslab-123-1", 123, true},
		{"httpslab-123", 0, false},
		{"httpslab-x-1", 0, false},
		{"httpslab-0-1", 0, false},
		{"other-123-1", 0, false},
		{"httpslab-123-1-2", 0, false},
		{"httpslab-0123-1", 0, false},
		{"httpslab-+123-1", 0, false},
		{"httpslab-123-01", 0, false},
	}
	for _, tt := range tests {
		pid, ok := ownerPID(tt.name)
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("ownerPID(%q) = %d, %v; want %d, %v", tt.name, pid, ok, tt.pid, tt.ok)
		}
	}
}

// FuzzOwnerPID feeds arbitrary namespace names, as any root process may
// create them in /run/netns: ownerPID must never panic, and what it accepts
// must be a positive pid that names the namespace back.
func FuzzOwnerPID(f *testing.F) {
	for _, s := range []string{"httpslab-123-1", "httpslab--1", "httpslab-+5-1", "cni-1234", "httpslab-99999999999999999999-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		pid, ok := ownerPID(name)
		if !ok {
			return
		}
		if pid <= 0 || !strings.HasPrefix(name, fmt.Sprintf("%s%d-", nsPrefix, pid)) {
			t.Fatalf("ownerPID(%q) = %d; want a positive pid from the name", name, pid)
		}
	})
}
