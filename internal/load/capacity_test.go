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

// TestLimitErrorUsage: each limit is told in the words of the flag that
// sets it, with the numbers of the Config, and the limits a user can
// trade against each other come with a hint.
func TestLimitErrorUsage(t *testing.T) {
	for _, tt := range []struct {
		err       LimitError
		msg, hint string
	}{
		{LimitError{Field: "Streams", Value: 200000, Max: MaxInFlight}, "-m 200000: want at most 100000", ""},
		{LimitError{Field: "Pipeline", Value: 100001, Max: MaxInFlight}, "--pipeline 100001: want at most 100000", ""},
		{LimitError{Field: "Conns", Value: 500, Max: 200, Why: "the open-file limit is 200"},
			"-c 500: want at most 200: the open-file limit is 200", "use fewer connections, or more streams per connection (-m) with --http2"},
		{LimitError{Field: "InFlight", Value: 200000, Max: MaxInFlight, Conns: 100, PerConn: 2000},
			"-c 100 with 2000 in flight per connection: 200000 requests at once, want at most 100000", "fewer connections or fewer streams per connection"},
	} {
		if msg, hint := tt.err.Usage(); msg != tt.msg || hint != tt.hint {
			t.Errorf("%s: Usage() = %q, %q; want %q, %q", tt.err.Field, msg, hint, tt.msg, tt.hint)
		}
	}
	err := CheckLimits(Config{Conns: 100, Streams: 2000})
	if le, ok := errors.AsType[*LimitError](err); !ok || le.Conns != 100 || le.PerConn != 2000 {
		t.Errorf("CheckLimits(100 × 2000) = %#v; want an InFlight LimitError of 100 connections with 2000 each", err)
	}
}
