package tlsscan

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsConfig(t *testing.T) {
	ok := Flags{Attempts: 20, Concurrency: 8, ConnectTimeout: 5 * time.Second, MaxTime: DefaultMaxTime}
	for _, tt := range []struct {
		name, target string
		edit         func(*Flags)
		wantErr      string
		wantHTTPPort int
	}{
		{"port 443 pairs with 80", "example.test", func(*Flags) {}, "", 80},
		{"other port: no redirect check", "example.test:8443", func(*Flags) {}, "", 0},
		{"given port", "example.test", func(f *Flags) { f.HTTPPort, f.HTTPPortGiven = 8080, true }, "", 8080},
		{"given 0 skips", "example.test", func(f *Flags) { f.HTTPPortGiven = true }, "", 0},
		{"bad target", "https://", func(*Flags) {}, "", 0},
		{"fail-on", "example.test", func(f *Flags) { f.FailOn = "dire" }, "dire", 0},
		{"attempts", "example.test", func(f *Flags) { f.Attempts = 0 }, "--attempts must be 1 to 1000", 0},
		{"connect timeout", "example.test", func(f *Flags) { f.ConnectTimeout = time.Hour }, "--connect-timeout 1h0m0s", 0},
		{"large path", "example.test", func(f *Flags) { f.LargePath = "big" }, `--large-path "big"`, 0},
		{"http port", "example.test", func(f *Flags) { f.HTTPPort = -1 }, "--http-port -1", 0},
		{"cacert", "example.test", func(f *Flags) { f.Trust = transport.Trust{CAFile: "/nonexistent/ca.pem"} }, "--cacert", 0},
	} {
		f := ok
		tt.edit(&f)
		cfg, _, _, err := f.Config(tt.target)
		if tt.name == "bad target" {
			if !errors.As(err, new(*usage.Error)) {
				t.Errorf("%s: Config(%q) error %v; want a usage error", tt.name, tt.target, err)
			}
			continue
		}
		switch {
		case tt.wantErr == "" && (err != nil || cfg.HTTPPort != tt.wantHTTPPort):
			t.Errorf("%s: Config(%q) = HTTPPort %d, %v; want %d", tt.name, tt.target, cfg.HTTPPort, err, tt.wantHTTPPort)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("%s: Config(%q) error %v; want a usage error containing %q", tt.name, tt.target, err, tt.wantErr)
		}
	}
}
