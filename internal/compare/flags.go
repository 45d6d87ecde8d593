package compare

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// Flags are a comparison's settings as compare's command line gives them;
// Config checks them. Errors name the flags and are usage errors.
type Flags struct {
	Runs      int    // -n: measured requests per variant, 0 for the default
	RunsGiven bool   // -n was given, so 0 is no default
	Warmup    int    // --warmup: unmeasured rounds, 0 for none
	MaxRuns   int    // --max-runs
	Precision string // --precision: "5%", or "" to run Runs rounds
	Alpha     float64
	Holm      bool
	Seed      uint64
	Vary      string // --vary: "scheme,tls", "all", or "" for DefaultMatrix
	TLSMax    string // --tls-max: "1.2" for a server without TLS 1.3
}

// Config returns the runner's configuration, without its variants, and
// the keys of the variants to measure.
func (f Flags) Config() (Config, []Key, error) {
	cfg := Config{Runs: f.Runs, Warmup: f.Warmup, MaxRuns: f.MaxRuns, Alpha: f.Alpha, Seed: f.Seed, Holm: f.Holm}
	switch {
	// The comparisons hold all n² pairwise differences of two variants
	// in memory, so -n is bounded like --max-runs.
	case f.Runs < 0 || f.Runs > 2000 || (f.Runs == 0 && f.RunsGiven):
		return cfg, nil, usage.Errorf("-n %d: want 1 to 2000", f.Runs)
	case f.MaxRuns < 2 || f.MaxRuns > 2000:
		return cfg, nil, usage.Errorf("--max-runs %d: want 2 to 2000", f.MaxRuns)
	case f.Warmup < 0 || f.Warmup > 100:
		return cfg, nil, usage.Errorf("--warmup %d: want 0 to 100", f.Warmup)
	case !(f.Alpha > 0 && f.Alpha < 0.5): // NaN fails both
		return cfg, nil, usage.Errorf("--alpha %v: want a level between 0 and 0.5, e.g. 0.05", f.Alpha)
	}
	if f.Warmup == 0 {
		cfg.Warmup = -1
	}
	if f.Precision != "" {
		p, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f.Precision), "%")), 64)
		if p /= 100; err != nil || !(p > 0 && p < 1) { // NaN fails both
			return cfg, nil, usage.Errorf("--precision %q: want a percentage such as 5%%", f.Precision)
		}
		cfg.Precision = p
		if f.Runs > f.MaxRuns {
			return cfg, nil, usage.Errorf("-n %d is above --max-runs %d", f.Runs, f.MaxRuns)
		}
	}
	keys, err := f.keys()
	return cfg, keys, err
}

// keys returns the matrix the flags ask for: with --tls-max 1.2, for a
// server without TLS 1.3, its variants use TLS 1.2 (every other variant
// would fail against it).
func (f Flags) keys() ([]Key, error) {
	noTLS13 := false
	switch v := f.TLSMax; v {
	case "", "1.3":
	case "1.2":
		noTLS13 = true
	default:
		return nil, usage.Hinted("--tls-max 1.2 is for a server without TLS 1.3", "--tls-max %s: compare measures TLS 1.2 and 1.3", v)
	}
	keys, err := Plan(f.Vary, noTLS13)
	if errors.Is(err, ErrOneTLSVersion) {
		return nil, usage.Errorf("--tls-max 1.2 with --vary %s: %v; leave tls out of --vary", f.Vary, err)
	}
	return keys, usage.Wrap(err, "")
}

// CheckURLs checks a URL given to compare and its --http-url as probe
// would, so that an error names the URL the user gave, not the
// plain-HTTP one derived from it ("https://" failed as "setting up http
// h1: URL \"http:\": no host").
func CheckURLs(httpsURL, httpURL string) error {
	if !strings.HasPrefix(strings.ToLower(httpsURL), "https://") {
		return usage.Hinted("the plain-HTTP variants use --http-url, or the https URL's host on port 80",
			"compare %s: want an https:// URL", httpsURL)
	}
	if err := CheckURL(httpsURL); err != nil {
		return usage.Errorf("compare %s: %v", httpsURL, err)
	}
	if httpURL == "" {
		return nil
	}
	if !strings.HasPrefix(strings.ToLower(httpURL), "http://") {
		return usage.Hinted("--http-url is the plain-HTTP URL of the same resource, e.g. http://HOST:8080/",
			"--http-url %s: want an http:// URL", httpURL)
	}
	if err := CheckURL(httpURL); err != nil {
		return usage.Errorf("--http-url %s: %v", httpURL, err)
	}
	return nil
}

// CheckURL checks a URL as probe would, before any request.
func CheckURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	return transport.CheckURL(u)
}
