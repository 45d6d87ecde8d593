package load

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/sys/unix"
)

// TestRunRefusesPastLimits: Run itself, not only bench's flags, refuses
// more connections than the open-file limit allows and more requests in
// flight than MaxInFlight, for any caller, before it dials.
func TestRunRefusesPastLimits(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	old := lim
	lim.Cur = 200
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
	// Nothing listens on port 1: a run that started would count refused
	// connections instead of returning the error.
	target := []Target{{URL: "http://127.0.0.1:1/"}}
	for _, tt := range []struct {
		cfg   Config
		field string
		why   string
	}{
		{Config{Targets: target, Conns: 500, Requests: 1000}, "Conns", "open-file limit is 200"},
		{Config{Targets: target, Conns: 500, Requests: 10}, "Conns", "open-file limit is 200"}, // -n lowers Conns, the check does not
		{Config{Targets: target, Conns: 100, Streams: 2000, Protocol: transport.HTTP2}, "InFlight", ""},
		{Config{Targets: target, Pipeline: MaxInFlight + 1}, "Pipeline", ""},
	} {
		res, err := Run(context.Background(), tt.cfg)
		var le *LimitError
		if !errors.As(err, &le) || le.Field != tt.field || !strings.Contains(le.Why, tt.why) || res != nil {
			t.Errorf("Run(%+v) = %v, %v; want a LimitError on %s (%q)", tt.cfg, res, err, tt.field, tt.why)
		}
	}
	if err := CheckLimits(Config{Conns: 100, Streams: 1000}); err != nil {
		t.Errorf("CheckLimits(100 × 1000) = %v; want nil, 100,000 in flight is the limit", err)
	}
}
