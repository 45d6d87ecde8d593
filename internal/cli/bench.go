package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

type benchFlags struct {
	l              load.Flags
	duration, data string
	out            outputFlags
	inputFile      string
	// req holds the shared request flags bench takes: not all of them,
	// since -d and -m mean duration and streams here.
	req requestFlags
}

func newBenchCmd(e *env) *cobra.Command {
	cmd, _ := benchCommand(e)
	return cmd
}

// benchCommand returns bench's command and the flags it fills, so that
// experiment can read a bench command line with bench's own flags.
func benchCommand(e *env) (*cobra.Command, *benchFlags) {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench URL... (or -i FILE)",
		Short: "Load a server: requests/s, handshakes/s, latency per phase, CPU",
		RunE: func(cmd *cobra.Command, args []string) error {
			urls, err := f.urls(args)
			if err != nil {
				return err
			}
			return e.runBench(f, urls)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if hint := load.PeerFlagHint(err.Error()); hint != "" {
			return usageError{withHint(err, hint)}
		}
		return usageError{err}
	})
	fl := cmd.Flags()
	fl.IntVarP(&f.l.Conns, "connections", "c", 10, "number of connections (closed model: concurrent requests)")
	fl.IntVarP(&f.l.Threads, "threads", "t", 0, "OS threads that run requests at once (GOMAXPROCS), as wrk's and h2load's -t (0: the cores this process may use)")
	fl.StringVarP(&f.inputFile, "input-file", "i", "", "read URLs from this `file`, one per line (# comments), after those given as arguments; - is standard input")
	fl.Int64VarP(&f.l.Requests, "requests", "n", 0, "exact number of requests (default: run for -d)")
	fl.StringVarP(&f.duration, "duration", "d", "", "duration of the run, e.g. 10s, or 10 as seconds (default 10s); @FILE is a request body")
	fl.IntVarP(&f.l.Streams, "max-concurrent-streams", "m", 1, "concurrent streams per connection (HTTP/2, HTTP/3)")
	fl.IntVar(&f.l.Pipeline, "pipeline", 1, "HTTP/1.1 requests in flight per connection")
	fl.VarP((*rateValue)(&f.l.Rate), "rate", "R", "open model: requests per second (0: closed model)")
	fl.DurationVar(&f.l.Timeout, "timeout", load.DefaultTimeout, "per-request timeout, connection setup included (HTTP/2, closed model: a connection fails when none of its streams ends for this long)")
	fl.StringVar(&f.l.Conn, "conn", "keepalive", "connection mode: keepalive, new (full handshake each), resume")
	fl.IntVar(&f.l.PerConn, "requests-per-conn", 0, "close each connection after this many requests (0: keepalive no limit, new/resume 1)")
	fl.StringVar(&f.data, "data", "", "request body; @FILE reads it from a file")
	fl.BoolVar(&f.l.FirstVisit, "first-visit", false, "offer every key share on each handshake, as a browser's first visit, not only the server's group once learned")
	fl.IntSliceVar(&f.l.ServerPIDs, "server-pid", nil, "measure the CPU time of this local server process and its children (repeatable)")
	fl.StringArrayVar(&f.l.FailIf, "fail-if", nil, "exit with code 3 when this holds, e.g. 'p99>200ms', 'errors>0.1%' (repeatable)")
	fl.StringVar(&f.l.RequestLog, "request-log", "", "write each request's start (Unix ns), latency (ns) and status to `FILE`, a line each")
	fl.IntVar(&f.l.Plan.Workers, "workers", 0, "one of N workers that share the run: -c, -n and --rate are totals, split across them")
	fl.StringVar(&f.l.Plan.Index, "index", "", "this worker's index, 0 to N-1 (default: $"+load.IndexEnv+", as a Kubernetes Indexed Job sets it)")
	fl.StringVar(&f.l.Plan.StartAt, "start-at", "", "start at this wall-clock `time`, RFC 3339 or +DURATION (+5s), once set up")
	fl.DurationVar(&f.l.Plan.StartGrace, "start-grace", load.DefaultStartGrace, "refuse to run when set up later than this past --start-at")
	f.out.add(fl, "write the result as JSON (schema httpslab/bench/v4, histograms HDR-encoded) instead of text",
		"write the result as CSV (a header line and one line per run, latencies in ms) instead of text")
	f.req.addTLS(fl)
	f.req.addOnly(fl, "resolve", "connect-to", "ipv4", "ipv6", "request", "header", "http1.1", "http2", "http3", "max-header-size")
	fl.Lookup("http1.1").Usage = "use HTTP/1.1 (the default)"
	fl.Lookup("http2").Usage = "use HTTP/2 (ALPN h2; over http://: h2c with prior knowledge)"
	fl.Lookup("request").Usage = "request method (default GET, POST with a body)"
	fl.Lookup("header").Usage = "extra request header 'Name: value' (repeatable)"
	return cmd, &f
}

func (e *env) runBench(f benchFlags, urls []string) error {
	out, err := f.out.check()
	if err != nil {
		return err
	}
	cfg, thresholds, err := f.config(urls)
	if err != nil {
		return err
	}
	// Each second's latency histograms are read only by the JSON form (and
	// the HTML report made from it); their encodings cost CPU every second.
	cfg.IntervalCountsOnly = !f.out.json && f.out.html == ""
	if f.l.Threads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(f.l.Threads))
	}
	ctx, stop := interruptible(e.ctx)
	defer stop()
	if tty, ok := e.stderr.(*os.File); ok && isTerminal(tty) && out == textOutput {
		cfg.Progress = func(p load.Progress) {
			fmt.Fprintf(e.stderr, "\r%6.1fs  %d requests  %d errors  %d handshakes ", p.Elapsed.Seconds(), p.Requests, p.Errors, p.Handshakes)
		}
	}
	res, err := load.Run(ctx, cfg)
	if cfg.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if errors.As(err, new(*load.RouteError)) || errors.As(err, new(*load.LateError)) {
		return withHint(err, load.Hint(err))
	} else if errors.Is(err, context.Canceled) { // interrupted waiting for --start-at
		return e.interrupted()
	}
	if err != nil {
		return usageError{err}
	}
	var doc any // the JSON form, built only for --json and --html: its HDR encodings cost a short run's CPU
	if f.out.json || f.out.html != "" {
		doc = report.NewBenchJSON(res, thresholds...)
	}
	if err := e.write(f.out, "bench", doc, func() error { return report.Bench(e.stdout, res) },
		func() error { return report.BenchCSV(e.stdout, res) }); err != nil {
		return err
	}
	if res.Interrupted {
		return e.interrupted() // the report itself is on stdout
	}
	return benchVerdict(res, thresholds)
}

// benchVerdict maps a tripped threshold and a run where nothing
// succeeded to exit codes; an interrupted run ends before it.
func benchVerdict(res *load.Result, thresholds []load.Threshold) error {
	if tripped := res.Tripped(thresholds); len(tripped) > 0 {
		err := fmt.Errorf("threshold tripped: %s", strings.Join(tripped, "; "))
		if res.Requests == 0 && res.Errors > 0 {
			// The threshold sets the exit code, but the reason the run
			// failed (a wrong port, an untrusted certificate) still shows.
			err = withHint(fmt.Errorf("%w; every request failed", err), res.Hint())
		}
		return exitError{code: ExitThreshold, err: err}
	}
	if res.Errors > 0 {
		return withHint(res.Failure(), res.Hint())
	}
	return withHint(res.Failure(), "the run ended before the first response; give a longer -d or an exact count with -n")
}

// urls returns the target URLs: the arguments, then the lines of
// --input-file (h2load's -i), blank lines and # comments left out.
func (f benchFlags) urls(args []string) ([]string, error) {
	urls := slices.Clone(args)
	if f.inputFile == "-" && (f.data == "@-" || f.duration == "@-") {
		// The URLs took all of standard input: the body came out empty.
		return nil, withHint(usagef("-i - and a body from @-: standard input can be read once"),
			"put the URLs or the body in a file")
	}
	if f.inputFile != "" {
		data, err := readURLFile(f.inputFile)
		if err != nil {
			return nil, err
		}
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				urls = append(urls, line)
			}
		}
	}
	if len(urls) == 0 {
		return nil, withHint(usagef("no URL to load"), "give one or more URLs, or a file of them with -i FILE")
	}
	for _, u := range urls {
		if err := checkScheme("target URL", u); err != nil {
			return nil, err
		}
	}
	return urls, nil
}

// maxURLFile bounds what -i reads: a list of URLs is small, while
// -i /dev/zero would otherwise grow memory until the process is killed.
const maxURLFile = 16 << 20

// readURLFile reads the -i file, or standard input for "-", up to
// maxURLFile bytes.
func readURLFile(name string) ([]byte, error) {
	data, err := transport.ReadInput(name, stdin, maxURLFile)
	var large transport.TooLargeError
	if errors.As(err, &large) {
		return nil, withHint(usagef("reading --input-file %s: %v", name, err), "want a list of URLs, one per line")
	}
	if err != nil {
		return nil, usagef("reading --input-file: %v", err)
	}
	return data, nil
}

// config turns the flags into a load.Config and the thresholds.
func (f benchFlags) config(urls []string) (load.Config, []load.Threshold, error) {
	body, d, err := f.bodyAndDuration()
	if err != nil {
		return load.Config{}, nil, err
	}
	return f.l.Config(f.req.Curl, urls, body, d)
}

// bodyAndDuration reads -d (a duration, or @FILE as curl's body) and --data.
func (f benchFlags) bodyAndDuration() ([]byte, time.Duration, error) {
	data, d := f.data, time.Duration(0)
	if strings.HasPrefix(f.duration, "@") {
		if data != "" {
			return nil, 0, usagef("give the body once: -d @FILE or --data")
		}
		data = f.duration
	} else if f.duration != "" {
		var err error
		if d, err = transport.ParseSeconds(f.duration); err != nil || d <= 0 {
			return nil, 0, usagef("-d %q: want a duration such as 10s (or 10, in seconds), or @FILE for a body", f.duration)
		}
	}
	if data == "" {
		return nil, d, nil
	}
	body, err := transport.ReadData(data, stdin)
	return body, d, err
}
