package load

import (
	"errors"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// MaxThreads bounds -t: the Go runtime keeps state per thread slot, and a
// count far past the cores only costs memory (-t 100000 took 2 GiB).
const MaxThreads = 1024

// Flags are a run's settings as bench's command line gives them, but for
// the request options it shares with the other commands and its -d; Config
// checks them. Errors name the flags and are usage errors.
type Flags struct {
	Conns, Streams, Pipeline int           // -c, -m, --pipeline
	Threads                  int           // -t: 0 for the cores this process may use
	Requests                 int64         // -n: 0 to run for a duration
	PerConn                  int           // --requests-per-conn
	Rate                     float64       // --rate: 0 for the closed model
	Timeout                  time.Duration // --timeout
	Conn                     string        // --conn
	ServerPIDs               []int         // --server-pid
	FailIf                   []string      // --fail-if
	FirstVisit               bool          // --first-visit
	RequestLog               string        // --request-log
	Plan                     Plan          // --workers, --index, --start-at, --start-grace
}

// Config returns the run of urls with the shared request options c, the
// request body and the duration (0 with -n), and the --fail-if
// thresholds; the --cacert file is read now.
func (f Flags) Config(c transport.Curl, urls []string, body []byte, d time.Duration) (Config, []Threshold, error) {
	cfg := Config{Conns: f.Conns, Streams: f.Streams, Pipeline: f.Pipeline, Requests: f.Requests, Duration: d,
		Rate: f.Rate, Timeout: f.Timeout, RequestsPerConn: f.PerConn, MaxHeaderBytes: c.MaxHeaderBytes}
	if err := f.check(); err != nil {
		return cfg, nil, err
	}
	var err error
	if cfg.Mode, err = ParseConnMode(f.Conn); err != nil {
		return cfg, nil, usage.Wrap(err, "")
	}
	if cfg.Protocol, err = c.Protocol(); err != nil {
		return cfg, nil, err
	}
	if cfg.Requests > 0 && cfg.Duration > 0 {
		// -n won and -d was left out without a word.
		return cfg, nil, usage.Hinted("-n runs exactly that many requests; -d runs for that long",
			"-n %d and -d %s: give a count or a duration, not both", cfg.Requests, cfg.Duration)
	}
	header, err := c.Header()
	if err != nil {
		return cfg, nil, err
	}
	for _, v := range header.Values("Connection") {
		// The clients manage connections and drop the field: the run
		// kept connections alive, against the header's word.
		if strings.Contains(strings.ToLower(v), "close") {
			return cfg, nil, usage.Hinted("--conn new opens a connection per request (a full handshake each), --requests-per-conn K closes them after K",
				"-H 'Connection: %s': bench decides when connections close", v)
		}
	}
	for _, u := range urls {
		cfg.Targets = append(cfg.Targets, Target{Method: c.Method, URL: u, Header: header, Body: body})
	}
	if cfg.TLS, err = c.TLS(); err != nil {
		return cfg, nil, err
	}
	// The --cacert file is part of the command line, as a missing one is.
	if cfg.TLS.Trust, err = cfg.TLS.Trust.Load(); err != nil {
		return cfg, nil, usage.Wrap(err, "check the --cacert file: it must hold PEM certificates")
	}
	if cfg.Routes, err = c.Routes(); err != nil {
		return cfg, nil, err
	}
	cfg.ServerPIDs, cfg.FirstVisit, cfg.RequestLog = f.ServerPIDs, f.FirstVisit, f.RequestLog
	if err := f.Plan.Apply(&cfg, time.Now()); err != nil {
		return cfg, nil, usage.Wrap(err, Hint(err))
	}
	ths, err := ParseThresholds(f.FailIf)
	if err != nil {
		return cfg, nil, usage.Wrap(err, "")
	}
	return cfg, ths, nil
}

// check refuses counts, rates and times out of range, naming the flag, a
// -t past MaxThreads, a -c, -m or --pipeline past what can run here
// (CheckLimits), and server PIDs that name no process.
func (f Flags) check() error {
	for _, c := range []struct {
		bad        bool
		flag, want string
		value      any
	}{
		{f.Conns < 1, "-c", "at least 1", f.Conns},
		{f.Threads < 0, "-t", "0 (the cores this process may use) or more", f.Threads},
		{f.Streams < 1, "-m", "at least 1", f.Streams},
		{f.Pipeline < 1, "--pipeline", "at least 1", f.Pipeline},
		{f.Requests < 0, "-n", "0 (run for -d) or more", f.Requests},
		{f.PerConn < 0, "--requests-per-conn", "0 (no limit) or more", f.PerConn},
		{f.Timeout <= 0, "--timeout", "a positive duration", f.Timeout},
	} {
		if c.bad {
			return usage.Errorf("%s %v: want %s", c.flag, c.value, c.want)
		}
	}
	if f.Threads > MaxThreads {
		return usage.Errorf("-t %d: want at most %d (threads past the cores add no parallelism)", f.Threads, MaxThreads)
	}
	err := CheckLimits(Config{Conns: f.Conns, Streams: f.Streams, Pipeline: f.Pipeline})
	if lim, ok := errors.AsType[*LimitError](err); ok {
		msg, hint := lim.Usage()
		return usage.Wrap(errors.New(msg), hint)
	}
	if err != nil {
		return err
	}
	for _, pid := range f.ServerPIDs {
		if !machine.ProcessExists(pid) {
			return usage.Hinted("give the PID of a server on this machine, e.g. --server-pid $(pgrep -o nginx)", "--server-pid %d: no such process", pid)
		}
	}
	return nil
}

// peerFlags maps flags of wrk, ab, hey and h2load that bench does not
// have (or has with another meaning) to what bench takes instead, by the
// text of the flag parser's error.
var peerFlags = []struct{ match, hint string }{
	{"shorthand flag: 'z'", "-z is hey's duration; bench takes -d (-d 10s)"},
	{"shorthand flag: 'D'", "-D is h2load's duration; bench takes -d (-d 10s)"},
	{"shorthand flag: 'q'", "-q is hey's rate per worker; bench takes the total rate, --rate R (as wrk2's -R)"},
	{"shorthand flag: 'T'", "-T is ab's content type; give -H 'Content-Type: TYPE'"},
	{"shorthand flag: 'p'", "-p is ab's POST body file; give -d @FILE (or --data TEXT)"},
	{"shorthand flag: 'u'", "-u is ab's PUT body file; give -X PUT -d @FILE"},
	{"shorthand flag: 'C'", "-C is ab's cookie; give -H 'Cookie: NAME=VALUE'"},
	{"shorthand flag: 'A'", "-A is ab's user:password; give -H 'Authorization: Basic ...'"},
	{"shorthand flag: 's'", "bench runs no scripts (wrk -s); give several URLs or -i FILE, with -X, -H and -d @FILE"},
	{"unknown flag: --latency", "bench always prints the latency percentiles (wrk --latency)"},
	{`for "-m, --max-concurrent-streams"`, "-m is the streams per connection, as in h2load; the method (hey -m) is -X"},
}

// PeerFlagHint returns the hint for the flag error msg that a user of a
// peer tool would meet on bench's command line, or "".
func PeerFlagHint(msg string) string {
	for _, p := range peerFlags {
		if strings.Contains(msg, p.match) {
			return p.hint
		}
	}
	return ""
}
