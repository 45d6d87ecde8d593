package tlsscan

import (
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// DefaultMaxTime bounds a whole audit when --max-time is not given:
// against a server that answers, audit takes a few seconds; one that
// trickles its answers would otherwise hold it for minutes.
const DefaultMaxTime = 30 * time.Second

// Flags are an audit's settings as audit's command line gives them;
// Config checks them. Errors name the flags and are usage errors.
type Flags struct {
	FailOn         string        // --fail-on: a severity, or ""
	HTTPPort       int           // --http-port
	HTTPPortGiven  bool          // --http-port was given (0 then skips the check)
	LargePath      string        // --large-path
	Attempts       int           // --attempts
	Concurrency    int           // --concurrency
	ConnectTimeout time.Duration // --connect-timeout, per connection
	MaxTime        time.Duration // --max-time, the whole audit; 0: no limit
	MaxHeaderBytes int64
	Trust          transport.Trust // --cacert, -k
}

// Config returns the audit of target (HOST[:PORT] or an https:// URL),
// and the severity --fail-on sets, with whether it was given.
func (f Flags) Config(target string) (Config, Severity, bool, error) {
	var cfg Config
	host, port, path, err := ParseTarget(target)
	if err != nil {
		return cfg, 0, false, usage.Wrap(err, "")
	}
	var failOn Severity
	fail := f.FailOn != ""
	if fail {
		if failOn, err = ParseSeverity(f.FailOn); err != nil {
			return cfg, 0, false, usage.Wrap(err, "")
		}
	}
	switch {
	case f.Attempts < 1 || f.Attempts > 1000 || f.Concurrency < 1 || f.Concurrency > 64:
		return cfg, 0, false, usage.Errorf("--attempts must be 1 to 1000 and --concurrency 1 to 64")
	case f.ConnectTimeout < 0 || f.ConnectTimeout > 10*time.Minute:
		return cfg, 0, false, usage.Errorf("--connect-timeout %v: want 0 (the default, 5s) to 10m", f.ConnectTimeout)
	case f.LargePath != "" && !strings.HasPrefix(f.LargePath, "/"):
		return cfg, 0, false, usage.Errorf("--large-path %q: want a path starting with /", f.LargePath)
	case f.HTTPPort < 0 || f.HTTPPort > 65535:
		return cfg, 0, false, usage.Errorf("--http-port %d: want 0 to 65535", f.HTTPPort)
	}
	httpPort := f.HTTPPort
	if !f.HTTPPortGiven && port == 443 {
		httpPort = 80 // port 80 pairs with 443 only; other ports are named
	}
	cfg = Config{Host: host, Port: port, Path: path, LargePath: f.LargePath, HTTPPort: httpPort,
		Attempts: f.Attempts, Concurrency: f.Concurrency, Timeout: f.ConnectTimeout, MaxHeaderBytes: f.MaxHeaderBytes,
		MaxTime: f.MaxTime}
	// The CA file is read here, once, so that a bad one is a usage error.
	if cfg.Trust, err = f.Trust.Load(); err != nil {
		return cfg, 0, false, usage.Errorf("--cacert: %w", err)
	}
	return cfg, failOn, fail, nil
}
