package page

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// Flags are a page load's settings as page's command line gives them, but
// for the request options it shares with the other commands; Config
// checks them. Errors name the flags and are usage errors.
type Flags struct {
	Rounds            int    // -n
	Warmup            int    // --warmup: unmeasured rounds first, 0 for none
	MaxConnsPerOrigin int    // --max-conns-per-origin
	MaxStreams        int    // --max-streams
	MaxResources      int    // --max-resources
	RequestTimeout    string // --request-timeout: seconds or a duration
	Engine            string // --engine
	ResponseCost      string // --response-cost: a duration, or "" for none
	ResponseCostPerMB string // --response-cost-per-mb: a duration, or "" for none
	ResponseDelay     string // --response-delay: a duration, or "" for none
	TightLimit        int    // --tight-limit: 0 for none
	TightUntil        string // --tight-until: a duration, or "" for the document's end
	TightBurstCost    string // --tight-burst-cost: a duration, or "" for none
	Protocols         string // --protocols: "http,h1,h2,h3", or "" for one
}

// Config returns the load's Config, without its URL and protocol, with
// the TLS setup, routes, headers, load timeout (--max-time) and header
// limit of the shared request options c.
func (f Flags) Config(c transport.Curl) (Config, error) {
	var cfg Config
	switch {
	case f.Rounds < 1 || f.Rounds > 1000:
		return cfg, usage.Errorf("-n %d: want 1 to 1000", f.Rounds)
	case f.Warmup < 0 || f.Warmup > 100:
		return cfg, usage.Errorf("--warmup %d: want 0 to 100", f.Warmup)
	case f.MaxConnsPerOrigin < 1 || f.MaxConnsPerOrigin > 64:
		return cfg, usage.Errorf("--max-conns-per-origin %d: want 1 to 64", f.MaxConnsPerOrigin)
	case f.MaxStreams < 1 || f.MaxStreams > 1000:
		return cfg, usage.Errorf("--max-streams %d: want 1 to 1000", f.MaxStreams)
	case f.MaxResources < 1 || f.MaxResources > 100000:
		return cfg, usage.Errorf("--max-resources %d: want 1 to 100000", f.MaxResources)
	}
	var err error
	if cfg.TLS, err = c.TLS(); err != nil {
		return cfg, err
	}
	// The --cacert file is read once, not at every load.
	if cfg.TLS.Trust, err = cfg.TLS.Trust.Load(); err != nil {
		return cfg, usage.Wrap(err, "")
	}
	routes, err := c.Routes()
	if err != nil {
		return cfg, err
	}
	cfg.Dialer = &transport.Dialer{Routes: routes}
	if cfg.Header, err = c.Header(); err != nil {
		return cfg, err
	}
	if cfg.LoadTimeout, err = c.Timeout(DefaultLoadTimeout); err != nil {
		return cfg, err
	}
	if cfg.LoadTimeout == 0 {
		cfg.LoadTimeout = 1000 * time.Hour // curl's 0: no limit
	}
	if cfg.RequestTimeout, err = transport.ParseSeconds(f.RequestTimeout); err != nil || cfg.RequestTimeout <= 0 {
		return cfg, usage.Errorf("--request-timeout %q: want seconds (2.5) or a duration (1500ms)", f.RequestTimeout)
	}
	if cfg.Engine, err = ParseEngine(f.Engine); err != nil {
		return cfg, usage.Errorf("--engine: %v", err)
	}
	if cfg.ResponseCost, err = modelDuration("--response-cost", f.ResponseCost, cfg.Engine); err != nil {
		return cfg, err
	}
	if cfg.ResponseCostPerMB, err = modelDuration("--response-cost-per-mb", f.ResponseCostPerMB, cfg.Engine); err != nil {
		return cfg, err
	}
	if cfg.ResponseDelay, err = modelDuration("--response-delay", f.ResponseDelay, cfg.Engine); err != nil {
		return cfg, err
	}
	if cfg.TightLimit, cfg.TightUntil, err = f.tight(cfg.Engine); err != nil {
		return cfg, err
	}
	if cfg.TightBurstCost, err = modelDuration("--tight-burst-cost", f.TightBurstCost, cfg.Engine); err != nil {
		return cfg, err
	}
	if cfg.TightBurstCost > 0 && cfg.TightLimit == 0 {
		return cfg, usage.Hinted(fmt.Sprintf("add --tight-limit %d (Chromium's)", DefaultBrowserTightLimit), "--tight-burst-cost needs --tight-limit")
	}
	cfg.MaxConnsPerOrigin, cfg.MaxStreams, cfg.MaxResources = f.MaxConnsPerOrigin, f.MaxStreams, f.MaxResources
	cfg.MaxHeaderBytes = c.MaxHeaderBytes
	return cfg, nil
}

// CompareWarmup is Compare.Warmup for --warmup, whose 0 is none.
func (f Flags) CompareWarmup() int {
	if f.Warmup == 0 {
		return -1
	}
	return f.Warmup
}

// MaxModelDuration bounds --response-cost, --response-cost-per-mb and
// --response-delay.
const MaxModelDuration = time.Second

// modelDuration reads the value s of a flag of the modelled browser
// (--response-cost, --response-cost-per-mb, --response-delay): a duration from 0 to
// MaxModelDuration, for httpslab's engine only.
func modelDuration(flag, s string, e Engine) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil || d < 0 || d > MaxModelDuration:
		return 0, usage.Errorf("%s %q: want a duration from 0 to %v, such as 3ms", flag, s, MaxModelDuration)
	case d > 0 && e == EngineChromium:
		return 0, usage.Hinted("the browser's own cost is measured, not modelled: drop "+flag+", or load with --engine httpslab",
			"%s models a browser in httpslab's engine, not in --engine chromium", flag)
	}
	return d, nil
}

// Bounds of --tight-limit and --tight-until.
const (
	MaxTightLimit = 1000
	MaxTightUntil = 10 * time.Second
)

// tight reads --tight-limit and --tight-until, the modelled browser's
// tight mode.
func (f Flags) tight(e Engine) (int, time.Duration, error) {
	switch {
	case f.TightLimit < 0 || f.TightLimit > MaxTightLimit:
		return 0, 0, usage.Errorf("--tight-limit %d: want 0 (none) to %d; Chromium's is %d", f.TightLimit, MaxTightLimit, DefaultBrowserTightLimit)
	case f.TightLimit > 0 && e == EngineChromium:
		return 0, 0, usage.Hinted("the browser's own tight mode is measured, not modelled: drop --tight-limit, or load with --engine httpslab",
			"--tight-limit models a browser in httpslab's engine, not in --engine chromium")
	case f.TightLimit == 0 && f.TightUntil != "":
		return 0, 0, usage.Hinted(fmt.Sprintf("add --tight-limit %d (Chromium's)", DefaultBrowserTightLimit), "--tight-until needs --tight-limit")
	}
	if f.TightUntil == "" {
		return f.TightLimit, 0, nil
	}
	until, err := time.ParseDuration(f.TightUntil)
	if err != nil || until < 0 || until > MaxTightUntil {
		return 0, 0, usage.Errorf("--tight-until %q: want a duration from 0 to %v, such as 150ms", f.TightUntil, MaxTightUntil)
	}
	return f.TightLimit, until, nil
}

// ProtocolList reads --protocols, or the one protocol of --http1.1,
// --http2 or --http3 in c (Choose), for the page at pageURL.
func (f Flags) ProtocolList(c transport.Curl, pageURL string) ([]Protocol, error) {
	one, err := c.Protocol()
	if err != nil {
		return nil, err
	}
	if f.Protocols != "" && one != transport.ProtoAuto {
		return nil, usage.Errorf("choose --protocols or one of --http1.1, --http2 and --http3")
	}
	ps, err := Choose(f.Protocols, one, strings.HasPrefix(strings.ToLower(pageURL), "http://"))
	switch {
	case errors.Is(err, ErrNeedsHTTPS):
		return nil, usage.Hinted("give the https:// URL; the http protocol uses --http-url, or the URL on port 80",
			"--protocols %s: %v", f.Protocols, err)
	case err != nil:
		return nil, usage.Errorf("--protocols %s: %v", f.Protocols, err)
	}
	return ps, nil
}

// JoinProtocols lists ps for a message: "h1, h2".
func JoinProtocols(ps []Protocol) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}
