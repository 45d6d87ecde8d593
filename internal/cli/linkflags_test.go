package cli

import (
	"errors"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/netem"
	"github.com/spf13/pflag"
)

func TestLinkFlagsConfig(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		args []string
		set  bool
		want netem.Config
	}{
		{nil, false, netem.Config{}},
		{[]string{"--rtt", "50ms"}, true, netem.Config{RTT: 50 * ms}},
		{[]string{"--rtt", "50ms", "--jitter", "5ms", "--loss", "1%", "--bandwidth", "10mbit"}, true,
			netem.Config{RTT: 50 * ms, Jitter: 5 * ms, Loss: 0.01, Bandwidth: 10_000_000}},
		{[]string{"--profile", "3g"}, true, netem.Config{RTT: 300 * ms, Bandwidth: 1_600_000, Upload: 768_000}},
		// Flags given explicitly override the profile; --bandwidth sets both ways.
		{[]string{"--profile", "3g", "--rtt", "100ms", "--loss", "0.5"}, true,
			netem.Config{RTT: 100 * ms, Loss: 0.005, Bandwidth: 1_600_000, Upload: 768_000}},
		{[]string{"--profile", "4g", "--bandwidth", "2mbit"}, true, netem.Config{RTT: 170 * ms, Bandwidth: 2_000_000}},
		{[]string{"--bandwidth", "2mbit", "--upload-bandwidth", "500kbit"}, true, netem.Config{Bandwidth: 2_000_000, Upload: 500_000}},
	}
	for _, tt := range tests {
		var f linkFlags
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f.add(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("parsing %q: %v", tt.args, err)
		}
		got, err := f.config()
		if err != nil || got != tt.want || f.set() != tt.set {
			t.Errorf("flags %q: config() = %+v, %v, set() = %v; want %+v, nil, %v", tt.args, got, err, f.set(), tt.want, tt.set)
		}
	}
}

func TestLinkFlagsRefuseBadValues(t *testing.T) {
	for _, args := range [][]string{
		{"--profile", "5g"}, {"--loss", "x"}, {"--loss", "100%"}, {"--loss", "-1"}, {"--loss", "NaN%"},
		{"--bandwidth", "fast"}, {"--upload-bandwidth", "-1k"}, {"--rtt", "-5ms"},
		{"--rtt", "10ms", "--jitter", "20ms"}, {"--bandwidth", "100bit"},
	} {
		var f linkFlags
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f.add(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("parsing %q: %v", args, err)
		}
		var u usageError
		if _, err := f.config(); !errors.As(err, &u) {
			t.Errorf("flags %q: config() error = %v; want a usage error", args, err)
		}
	}
}

// TestLinkFlagsJitterHint: only a jitter above the RTT gets the hint to
// give a larger --rtt; an RTT refused for itself (negative, above a
// minute) does not, since a larger one would not help.
func TestLinkFlagsJitterHint(t *testing.T) {
	for _, tt := range []struct {
		args []string
		hint bool
	}{
		{[]string{"--rtt", "10ms", "--jitter", "20ms"}, true},
		{[]string{"--rtt", "2m", "--jitter", "3m"}, false},
		{[]string{"--rtt", "-5ms", "--jitter", "1ms"}, false},
	} {
		var f linkFlags
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f.add(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatalf("parsing %q: %v", tt.args, err)
		}
		_, err := f.config()
		h, hinted := errors.AsType[hintError](err)
		if err == nil || hinted != tt.hint || (hinted && h.hint != "the jitter varies the RTT around its value: give --rtt at least as large as --jitter") {
			t.Errorf("flags %q: config() = %v, hint %q; want an error, with the jitter hint: %v", tt.args, err, h.hint, tt.hint)
		}
	}
}
