package load

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsConfig(t *testing.T) {
	ok := Flags{Conns: 10, Streams: 1, Pipeline: 1, Timeout: DefaultTimeout, Conn: "keepalive"}
	urls := []string{"https://127.0.0.1:8443/", "https://127.0.0.1:8443/a"}
	for _, tt := range []struct {
		name    string
		edit    func(*Flags, *transport.Curl, *time.Duration)
		wantErr string
	}{
		{"defaults", func(*Flags, *transport.Curl, *time.Duration) {}, ""},
		{"conns", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.Conns = 0 }, "-c 0: want at least 1"},
		{"threads", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.Threads = MaxThreads + 1 }, "-t 1025: want at most 1024"},
		{"streams", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.Streams = MaxInFlight + 1 }, "-m 100001: want at most 100000"},
		{"timeout", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.Timeout = 0 }, "--timeout 0s: want a positive duration"},
		{"conn mode", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.Conn = "0rtt" }, "unknown connection mode"},
		{"count and duration", func(f *Flags, _ *transport.Curl, d *time.Duration) { f.Requests, *d = 10, time.Second }, "give a count or a duration, not both"},
		{"connection close", func(_ *Flags, c *transport.Curl, _ *time.Duration) { c.Headers = []string{"Connection: close"} }, "bench decides when connections close"},
		{"server pid", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.ServerPIDs = []int{1 << 30} }, "no such process"},
		{"threshold", func(f *Flags, _ *transport.Curl, _ *time.Duration) { f.FailIf = []string{"p99>>1"} }, "p99>>1"},
		{"cacert", func(_ *Flags, c *transport.Curl, _ *time.Duration) { c.CAFile = "/nonexistent/ca.pem" }, "--cacert"},
	} {
		f, c, d := ok, transport.Curl{}, time.Duration(0)
		tt.edit(&f, &c, &d)
		cfg, _, err := f.Config(c, urls, []byte("body"), d)
		switch {
		case tt.wantErr == "" && (err != nil || len(cfg.Targets) != 2 || string(cfg.Targets[1].Body) != "body"):
			t.Errorf("%s: Config() = %d targets, %v; want 2 with the body", tt.name, len(cfg.Targets), err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("%s: Config() error %v; want a usage error containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestPeerFlagHint(t *testing.T) {
	for msg, want := range map[string]string{
		"unknown shorthand flag: 'z' in -z":                              "-d (-d 10s)",
		"unknown flag: --latency":                                        "always prints the latency percentiles",
		"unknown shorthand flag: 'Y' in -Y":                              "",
		`invalid argument "GET" for "-m, --max-concurrent-streams" flag`: "the method (hey -m) is -X",
	} {
		if got := PeerFlagHint(msg); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("PeerFlagHint(%q) = %q; want one containing %q", msg, got, want)
		}
	}
}
