package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

type probeFlags struct {
	req       requestFlags
	p         probe.Flags
	writeOut  string
	har       string
	out       outputFlags
	silent    bool
	showError bool // accepted as in curl: errors are always shown
}

// defaultProbeTimeout bounds a probe, all hops, when --max-time is not
// given, so that a server that accepts and never answers cannot hold it
// forever (curl waits without end); --max-time 0 waits without end too.
const defaultProbeTimeout = 2 * time.Minute

func newProbeCmd(e *env) *cobra.Command {
	cmd, _ := probeCommand(e)
	return cmd
}

// probeCommand returns probe's command and the flags it fills, so that
// experiment can read a probe command line with probe's own flags.
func probeCommand(e *env) (*cobra.Command, *probeFlags) {
	var f probeFlags
	cmd := &cobra.Command{
		Use:   "probe URL",
		Short: "Time one HTTPS request phase by phase",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return e.runProbe(args[0], f) },
	}
	fl := cmd.Flags()
	f.req.add(fl)
	fl.IntVarP(&f.p.Runs, "count", "n", 1, "send N requests, each on a new connection, and summarize")
	fl.BoolVar(&f.p.Resume, "resume", false, "resume the first connection's TLS session on further connections")
	fl.BoolVar(&f.p.ZeroRTT, "0rtt", false, "HTTP/3: send further requests as 0-RTT early data (implies --http3)")
	fl.BoolVar(&f.p.Reuse, "reuse", false, "send a second request on the same connection")
	fl.BoolVarP(&f.p.Location, "location", "L", false, "follow redirects")
	fl.IntVar(&f.p.MaxRedirs, "max-redirs", probe.DefaultMaxRedirects, "most redirects to follow with -L (0: none, -1: up to 1000)")
	fl.StringVarP(&f.writeOut, "write-out", "w", "", "print curl's write-out `format` (@file reads it from a file, @- from stdin)")
	fl.StringVar(&f.har, "har", "", "write the requests as HAR 1.2 to `file`")
	f.out.add(fl, "print the result as JSON", "")
	fl.BoolVarP(&f.silent, "silent", "s", false, "print no waterfall (errors, -w and --json still print)")
	fl.StringVarP(&f.p.Output, "output", "o", "", "accepted as in curl for /dev/null only: probe never keeps bodies")
	fl.StringVarP(&f.p.UserAgent, "user-agent", "A", "", "send this User-Agent (default httpslab; a -H User-Agent wins)")
	fl.StringVarP(&f.p.Referer, "referer", "e", "", "send this Referer (a -H Referer wins)")
	fl.BoolVarP(&f.p.Head, "head", "I", false, "send a HEAD request")
	fl.BoolVar(&f.p.H2Prior, "http2-prior-knowledge", false, "HTTP/2 without Upgrade over http:// (what --http2 does here)")
	fl.BoolVar(&f.p.Compressed, "compressed", false, "ask for a compressed response, as curl does (sizes are then the compressed bytes)")
	fl.BoolVarP(&f.showError, "show-error", "S", false, "accepted as in curl (-sS): errors are always shown")
	fl.BoolVarP(&f.p.FailOnError, "fail", "f", false, "a final response of 400 or more is a failure (exit 1; -w %{exitcode} 22), as in curl")
	fl.StringVarP(&f.p.User, "user", "u", "", "send `user:password` as Basic auth (a -H Authorization wins)")
	return cmd, &f
}

// config returns the probe.Config of the flags for url.
func (f *probeFlags) config(url string) (probe.Config, error) {
	if url == "" {
		return probe.Config{}, usagef("probe: the URL is empty")
	}
	if err := checkScheme("probe", url); err != nil {
		return probe.Config{}, err
	}
	return f.p.Config(url, f.req.Curl, stdin, defaultProbeTimeout)
}

func (e *env) runProbe(url string, f probeFlags) error {
	if _, err := f.out.check(); err != nil {
		return err
	}
	p, err := f.p.Plan()
	if err != nil {
		return err
	}
	cfg, err := f.config(url)
	if err != nil {
		return err
	}
	var wo *report.WriteOut
	if f.writeOut != "" {
		if wo, err = e.parseWriteOut(f.writeOut); err != nil {
			return err
		}
	}
	client, err := probe.New(cfg)
	if err != nil {
		return usageError{err}
	}
	defer client.Close()
	har, err := createHAR(f.har) // after every usage check: no empty file for a bad command line
	if err != nil {
		return err
	}
	if har != nil {
		defer har.Close() // after a failed write; writeProbe closes it otherwise
	}
	ctx, stop := interruptible(e.ctx)
	defer stop()
	results, runErr := client.Run(ctx, p)
	interrupted := runErr != nil && ctx.Err() != nil
	if err := e.writeProbe(results, f, wo, har, interrupted); err != nil {
		return err
	}
	if interrupted {
		return e.interrupted()
	}
	if (f.p.Resume || f.p.ZeroRTT) && client.Tickets() == 0 && runErr == nil {
		fmt.Fprintln(e.stderr, "httpslab: note: the server sent no session ticket, so no connection could resume")
	}
	return withHint(runErr, probe.Hint(runErr, cfg, results)) // nil stays nil
}

func (e *env) parseWriteOut(arg string) (*report.WriteOut, error) {
	format := arg
	if name, ok := strings.CutPrefix(arg, "@"); ok {
		// As curl does: "@-" reads the format from standard input,
		// "@file" from the file.
		b, err := transport.ReadInput(name, stdin, report.MaxWriteOutFormat)
		if err != nil {
			return nil, usagef("reading write-out format %s: %v", arg, err)
		}
		format = report.JoinFormatLines(string(b))
	}
	wo, err := report.ParseWriteOut(format)
	if err != nil {
		return nil, usageError{err}
	}
	for _, w := range wo.Warnings {
		fmt.Fprintf(e.stderr, "httpslab: warning: %s\n", w)
	}
	return wo, nil
}

// createHAR creates the --har file before any request, so that a path
// that cannot be written is a usage error and not a lost run; nil for "".
func createHAR(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	fh, err := os.Create(path)
	if err != nil {
		return nil, withHint(usagef("--har: %v", err), "give a file in a directory that exists and that you can write to")
	}
	return fh, nil
}

// writeProbe prints the results in the chosen formats and writes the
// HAR file when har is not nil.
func (e *env) writeProbe(results []*probe.Result, f probeFlags, wo *report.WriteOut, har *os.File, interrupted bool) error {
	var hops []probe.Timeline
	for _, r := range results {
		hops = append(hops, r.Hops...)
	}
	if har != nil {
		err := report.WriteHAR(har, hops, versionString())
		if cerr := har.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", har.Name(), err)
		}
	}
	if err := e.writeResultHTML(f.out.html, "probe", report.NewProbeJSON(results, interrupted)); err != nil {
		return err
	}
	switch {
	case f.out.json:
		return report.WriteProbeJSON(e.stdout, results, interrupted)
	case f.out.csv:
		return report.WriteCSV(e.stdout, "probe", report.NewProbeJSON(results, interrupted))
	case wo != nil:
		return report.WriteOutRuns(e.stdout, e.stderr, wo, results, f.p.Output)
	case f.silent:
		return nil
	}
	return report.Probe(e.stdout, results, report.ProbeOptions{Summary: f.p.Runs > 1, Resume: f.p.Resume, ZeroRTT: f.p.ZeroRTT,
		Color: report.ColorEnabled(e.stdout)})
}
