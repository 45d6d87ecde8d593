package page

import (
	"errors"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsConfig(t *testing.T) {
	ok := Flags{Rounds: DefaultRounds, MaxConnsPerOrigin: 6, MaxStreams: 100, MaxResources: 2000, RequestTimeout: "30s", Engine: "httpslab"}
	for _, tt := range []struct {
		name    string
		edit    func(*Flags, *transport.Curl)
		wantErr string
	}{
		{"defaults", func(*Flags, *transport.Curl) {}, ""},
		{"rounds", func(f *Flags, _ *transport.Curl) { f.Rounds = 0 }, "-n 0: want 1 to 1000"},
		{"no warm-up", func(f *Flags, _ *transport.Curl) { f.Warmup = 0 }, ""},
		{"warm-up", func(f *Flags, _ *transport.Curl) { f.Warmup = 100 }, ""},
		{"warm-up negative", func(f *Flags, _ *transport.Curl) { f.Warmup = -1 }, "--warmup -1: want 0 to 100"},
		{"warm-up too long", func(f *Flags, _ *transport.Curl) { f.Warmup = 101 }, "--warmup 101: want 0 to 100"},
		{"conns", func(f *Flags, _ *transport.Curl) { f.MaxConnsPerOrigin = 65 }, "--max-conns-per-origin 65"},
		{"streams", func(f *Flags, _ *transport.Curl) { f.MaxStreams = 0 }, "--max-streams 0"},
		{"resources", func(f *Flags, _ *transport.Curl) { f.MaxResources = 100001 }, "--max-resources 100001"},
		{"request timeout", func(f *Flags, _ *transport.Curl) { f.RequestTimeout = "0" }, `--request-timeout "0"`},
		{"engine", func(f *Flags, _ *transport.Curl) { f.Engine = "lynx" }, "--engine"},
		{"max time", func(_ *Flags, c *transport.Curl) { c.MaxTime = "x" }, `--max-time "x"`},
		{"response cost", func(f *Flags, _ *transport.Curl) { f.ResponseCost = "3.5ms" }, ""},
		{"response cost none", func(f *Flags, _ *transport.Curl) { f.ResponseCost = "0s" }, ""},
		{"response cost negative", func(f *Flags, _ *transport.Curl) { f.ResponseCost = "-1ms" }, `--response-cost "-1ms"`},
		{"response cost too long", func(f *Flags, _ *transport.Curl) { f.ResponseCost = "2s" }, `--response-cost "2s"`},
		{"response cost unitless", func(f *Flags, _ *transport.Curl) { f.ResponseCost = "3" }, `--response-cost "3"`},
		{"response cost in the browser", func(f *Flags, _ *transport.Curl) { f.ResponseCost, f.Engine = "3ms", "chromium" }, "not in --engine chromium"},
		{"response cost per MB", func(f *Flags, _ *transport.Curl) { f.ResponseCostPerMB = "60ms" }, ""},
		{"response cost per MB negative", func(f *Flags, _ *transport.Curl) { f.ResponseCostPerMB = "-60ms" }, `--response-cost-per-mb "-60ms"`},
		{"response cost per MB in the browser", func(f *Flags, _ *transport.Curl) { f.ResponseCostPerMB, f.Engine = "60ms", "chromium" }, "--response-cost-per-mb models a browser"},
		{"response delay", func(f *Flags, _ *transport.Curl) { f.ResponseDelay = "15ms" }, ""},
		{"response delay too long", func(f *Flags, _ *transport.Curl) { f.ResponseDelay = "1m" }, `--response-delay "1m"`},
		{"response delay in the browser", func(f *Flags, _ *transport.Curl) { f.ResponseDelay, f.Engine = "3ms", "chromium" }, "--response-delay models a browser"},
		{"tight mode", func(f *Flags, _ *transport.Curl) { f.TightLimit, f.TightUntil = 2, "250ms" }, ""},
		{"tight mode to the document's end", func(f *Flags, _ *transport.Curl) { f.TightLimit = 2 }, ""},
		{"tight limit negative", func(f *Flags, _ *transport.Curl) { f.TightLimit = -1 }, "--tight-limit -1"},
		{"tight limit too high", func(f *Flags, _ *transport.Curl) { f.TightLimit = 1001 }, "--tight-limit 1001"},
		{"tight until alone", func(f *Flags, _ *transport.Curl) { f.TightUntil = "250ms" }, "--tight-until needs --tight-limit"},
		{"tight until negative", func(f *Flags, _ *transport.Curl) { f.TightLimit, f.TightUntil = 2, "-1ms" }, `--tight-until "-1ms"`},
		{"tight until too long", func(f *Flags, _ *transport.Curl) { f.TightLimit, f.TightUntil = 2, "11s" }, `--tight-until "11s"`},
		{"tight mode in the browser", func(f *Flags, _ *transport.Curl) { f.TightLimit, f.Engine = 2, "chromium" }, "--tight-limit models a browser"},
	} {
		f, c := ok, transport.Curl{}
		tt.edit(&f, &c)
		cfg, err := f.Config(c)
		switch {
		case tt.wantErr == "" && (err != nil || cfg.LoadTimeout != DefaultLoadTimeout || cfg.TLS.Insecure):
			t.Errorf("%s: Config() = load timeout %v, %v; want %v", tt.name, cfg.LoadTimeout, err, DefaultLoadTimeout)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("%s: Config() error %v; want a usage error containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestFlagsProtocolList(t *testing.T) {
	for _, tt := range []struct {
		protocols string
		c         transport.Curl
		url, want string
		wantErr   string
	}{
		{"http,h1,h2,h3", transport.Curl{}, "https://example.test/", "http, h1, h2, h3", ""},
		{"", transport.Curl{HTTP2: true}, "https://example.test/", "h2", ""},
		{"h1", transport.Curl{HTTP2: true}, "https://example.test/", "", "choose --protocols or one of"},
		{"h2", transport.Curl{}, "http://example.test/", "", "--protocols h2"},
		{"h5", transport.Curl{}, "https://example.test/", "", "--protocols h5"},
	} {
		ps, err := Flags{Protocols: tt.protocols}.ProtocolList(tt.c, tt.url)
		switch {
		case tt.wantErr == "" && (err != nil || JoinProtocols(ps) != tt.want):
			t.Errorf("ProtocolList(%q, %s) = %q, %v; want %q", tt.protocols, tt.url, JoinProtocols(ps), err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("ProtocolList(%q, %s) error %v; want a usage error containing %q", tt.protocols, tt.url, err, tt.wantErr)
		}
	}
}
