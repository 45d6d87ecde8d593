package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

type auditFlags struct {
	out         outputFlags
	failOn      string
	httpPort    int
	largePath   string
	attempts    int
	concurrency int
	maxTime     time.Duration // per connection (--connect-timeout)
	maxTotal    string        // the whole audit (--max-time)
	// req holds the shared flags audit takes: --cacert, -k and
	// --max-header-size.
	req requestFlags
}

// defaultAuditTime bounds a whole audit when --max-time is not given:
// against a server that answers, audit takes a few seconds; one that
// trickles its answers would otherwise hold it for minutes.
const defaultAuditTime = 30 * time.Second

func newAuditCmd(e *env) *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit HOST[:PORT] | https://HOST[:PORT]/PATH",
		Short: "Find every TLS and HTTP setting that costs time, bytes or safety, with its fix",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.runAudit(args[0], f, cmd.Flags().Changed("http-port"))
		},
	}
	fl := cmd.Flags()
	f.out.add(fl, "write the result as JSON (schema httpslab/audit/v4) instead of text", "")
	fl.StringVar(&f.failOn, "fail-on", "", "exit with status 3 if a finding of this severity or higher is found: high, medium, low, info")
	f.req.addOnly(fl, "cacert", "insecure", "max-header-size")
	fl.Lookup("insecure").Usage = "audit a server whose certificate does not verify (reported as a finding)"
	fl.IntVar(&f.httpPort, "http-port", 0, "plain-HTTP port for the redirect check (unset: 80 when auditing port 443, else skipped; 0 skips)")
	fl.StringVar(&f.largePath, "large-path", "", "path of a response over 16 KB to measure the first TLS record (default: the audited path)")
	fl.IntVar(&f.attempts, "attempts", 20, "reconnections for the resumption hit rate")
	fl.IntVar(&f.concurrency, "concurrency", 8, "parallel connections during enumeration")
	fl.DurationVarP(&f.maxTime, "connect-timeout", "", 5*time.Second, "give up on one connection after this long")
	fl.StringVarP(&f.maxTotal, "max-time", "m", "", "stop the audit after this long, in `seconds` or with a unit, and report what was measured (default 30s; 0: no limit)")
	return cmd
}

func (f auditFlags) config(arg string, httpPortSet bool) (tlsscan.Config, tlsscan.Severity, bool, error) {
	var cfg tlsscan.Config
	host, port, path, err := tlsscan.ParseTarget(arg)
	if err != nil {
		return cfg, 0, false, usageError{err}
	}
	var failOn tlsscan.Severity
	fail := f.failOn != ""
	if fail {
		if failOn, err = tlsscan.ParseSeverity(f.failOn); err != nil {
			return cfg, 0, false, usageError{err}
		}
	}
	if f.attempts < 1 || f.attempts > 1000 || f.concurrency < 1 || f.concurrency > 64 {
		return cfg, 0, false, usagef("--attempts must be 1 to 1000 and --concurrency 1 to 64")
	}
	if f.maxTime < 0 || f.maxTime > 10*time.Minute {
		return cfg, 0, false, usagef("--connect-timeout %v: want 0 (the default, 5s) to 10m", f.maxTime)
	}
	if f.largePath != "" && !strings.HasPrefix(f.largePath, "/") {
		return cfg, 0, false, usagef("--large-path %q: want a path starting with /", f.largePath)
	}
	if f.httpPort < 0 || f.httpPort > 65535 {
		return cfg, 0, false, usagef("--http-port %d: want 0 to 65535", f.httpPort)
	}
	maxTotal := defaultAuditTime
	if f.maxTotal != "" {
		var err error
		if maxTotal, err = parseSeconds(f.maxTotal); err != nil || maxTotal < 0 {
			return cfg, 0, false, usagef("--max-time %q: want seconds (30) or a duration (1m30s), 0 for no limit", f.maxTotal)
		}
	}
	httpPort := f.httpPort
	if !httpPortSet && port == 443 {
		httpPort = 80 // port 80 pairs with 443 only; other ports are named
	}
	cfg = tlsscan.Config{Host: host, Port: port, Path: path, LargePath: f.largePath, HTTPPort: httpPort,
		Attempts: f.attempts, Concurrency: f.concurrency, Timeout: f.maxTime, MaxHeaderBytes: int64(f.req.maxHeader),
		MaxTime: maxTotal}
	// The CA file is read here, once, so that a bad one is a usage error.
	trust, err := transport.Trust{CAFile: f.req.cacert, Insecure: f.req.insecure}.Load()
	if err != nil {
		return cfg, 0, false, usagef("--cacert: %w", err)
	}
	cfg.Trust = trust
	return cfg, failOn, fail, nil
}

func (e *env) runAudit(arg string, f auditFlags, httpPortSet bool) error {
	if _, err := f.out.check(); err != nil {
		return err
	}
	cfg, failOn, fail, err := f.config(arg, httpPortSet)
	if err != nil {
		return err
	}
	if file, ok := e.stderr.(*os.File); ok && isTerminal(file) {
		cfg.Progress = func(check string) { fmt.Fprintf(e.stderr, "\raudit: %-20s", check) }
		defer fmt.Fprint(e.stderr, "\r"+strings.Repeat(" ", 28)+"\r")
	}
	ctx, stop := interruptible(e.ctx)
	defer stop()
	rep, err := tlsscan.Run(ctx, cfg)
	if rep != nil {
		// Also after Ctrl-C: what was found so far is worth printing.
		if werr := e.write(f.out, "audit", rep, func() error { return report.Audit(e.stdout, rep) }, nil); werr != nil {
			return werr
		}
	}
	if err != nil && ctx.Err() != nil {
		return e.interrupted()
	}
	if err != nil {
		return withHint(err, tlsscan.Hint(err, cfg))
	}
	if fd := rep.FirstAtLeast(failOn); fail && fd != nil {
		return exitError{code: ExitThreshold, err: fmt.Errorf("finding %s is %s (--fail-on %s)", fd.ID, fd.Severity, f.failOn)}
	}
	return nil
}
