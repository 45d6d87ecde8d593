package probe

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// Flags are a probe's settings as probe's command line gives them, with
// curl's spellings of a few request options, but for the request options
// it shares with the other commands; Plan and Config check them. Errors
// name the flags and are usage errors.
type Flags struct {
	Runs                    int  // -n
	Resume, Reuse, ZeroRTT  bool // --resume, --reuse, --0rtt
	Location                bool // -L
	MaxRedirs               int  // --max-redirs
	Output                  string
	UserAgent, Referer      string // -A, -e
	User                    string // -u
	Head, H2Prior           bool   // -I, --http2-prior-knowledge
	Compressed, FailOnError bool   // --compressed, -f
}

// Plan returns which connection mode each run uses and how many runs
// there are.
func (f Flags) Plan() (Plan, error) {
	modes := 0
	for _, on := range []bool{f.Resume, f.Reuse, f.ZeroRTT} {
		if on {
			modes++
		}
	}
	switch {
	case modes > 1:
		return Plan{}, usage.Errorf("choose one of --resume, --reuse and --0rtt")
	case f.Runs < 1 || f.Runs > 100000:
		return Plan{}, usage.Errorf("-n %d: want 1 to 100000", f.Runs)
	case f.Output != "" && f.Output != os.DevNull:
		return Plan{}, usage.Errorf("-o %s: probe does not keep response bodies; only -o %s is accepted", f.Output, os.DevNull)
	}
	p := Plan{First: transport.Fresh, Rest: transport.Fresh, Runs: f.Runs}
	switch {
	case f.Resume:
		p.First, p.Rest, p.Runs = transport.Resumed, transport.Resumed, max(f.Runs, 2)
	case f.ZeroRTT:
		p.First, p.Rest, p.Runs = transport.ZeroRTT, transport.ZeroRTT, max(f.Runs, 2)
	case f.Reuse:
		p.First, p.Rest, p.Runs = transport.Fresh, transport.KeepAlive, max(f.Runs, 2)
	}
	return p, nil
}

// Config returns the Config of a probe of url with the shared request
// options c, bodies named @- read from stdin; without --max-time a probe
// gives up after def.
func (f Flags) Config(url string, c transport.Curl, stdin io.Reader, def time.Duration) (Config, error) {
	if f.Resume && !f.Location && strings.HasPrefix(strings.ToLower(url), "http://") {
		return Config{}, usage.Hinted("probe the https:// URL, or add -L if it redirects there",
			"--resume resumes TLS sessions: %s has no TLS", url)
	}
	if f.ZeroRTT {
		if c.HTTP11 || c.HTTP2 {
			return Config{}, usage.Errorf("--0rtt needs HTTP/3")
		}
		c.HTTP3 = true
	}
	if f.H2Prior {
		c.HTTP2 = true
	}
	if f.Head {
		if m := strings.ToUpper(c.Method); m != "" && m != "HEAD" {
			return Config{}, usage.Errorf("-I sends HEAD, -X %s another method: choose one", c.Method)
		}
		if len(c.Data) > 0 || len(c.DataBinary) > 0 {
			return Config{}, usage.Errorf("-I sends HEAD, which has no body: leave out -d and --data-binary")
		}
		c.Method = "HEAD"
	}
	cfg, err := CurlConfig(url, c, stdin, def)
	if err != nil {
		return cfg, err
	}
	transport.CurlHeaders{UserAgent: f.UserAgent, Referer: f.Referer, Compressed: f.Compressed, User: f.User}.Apply(cfg.Header)
	cfg.FollowRedirects, cfg.FailOnHTTPError = f.Location, f.FailOnError
	if cfg.MaxRedirects, err = CurlMaxRedirects(f.MaxRedirs); err != nil {
		return cfg, usage.Errorf("--max-redirs %d: %v", f.MaxRedirs, err)
	}
	return cfg, nil
}
