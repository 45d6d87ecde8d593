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
	a        tlsscan.Flags
	out      outputFlags
	maxTotal string // the whole audit (--max-time)
	// req holds the shared flags audit takes: --cacert, -k and
	// --max-header-size.
	req requestFlags
}

func newAuditCmd(e *env) *cobra.Command {
	var f auditFlags
	cmd := &cobra.Command{
		Use:   "audit HOST[:PORT] | https://HOST[:PORT]/PATH",
		Short: "Find every TLS and HTTP setting that costs time, bytes or safety, with its fix",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.a.HTTPPortGiven = cmd.Flags().Changed("http-port")
			return e.runAudit(args[0], f)
		},
	}
	fl := cmd.Flags()
	f.out.add(fl, "write the result as JSON (schema httpslab/audit/v4) instead of text", "")
	fl.StringVar(&f.a.FailOn, "fail-on", "", "exit with status 3 if a finding of this severity or higher is found: high, medium, low, info")
	f.req.addOnly(fl, "cacert", "insecure", "max-header-size")
	fl.Lookup("insecure").Usage = "audit a server whose certificate does not verify (reported as a finding)"
	fl.IntVar(&f.a.HTTPPort, "http-port", 0, "plain-HTTP port for the redirect check (unset: 80 when auditing port 443, else skipped; 0 skips)")
	fl.StringVar(&f.a.LargePath, "large-path", "", "path of a response over 16 KB to measure the first TLS record (default: the audited path)")
	fl.IntVar(&f.a.Attempts, "attempts", 20, "reconnections for the resumption hit rate")
	fl.IntVar(&f.a.Concurrency, "concurrency", tlsscan.DefaultConcurrency, "connections open at once, every check's")
	fl.DurationVarP(&f.a.ConnectTimeout, "connect-timeout", "", 5*time.Second, "give up on one connection after this long")
	fl.StringVarP(&f.maxTotal, "max-time", "m", "", "stop the audit after this long, in `seconds` or with a unit, and report what was measured (default 30s; 0: no limit)")
	return cmd
}

func (f auditFlags) config(arg string) (tlsscan.Config, tlsscan.Severity, bool, error) {
	f.a.MaxTime, f.a.MaxHeaderBytes = tlsscan.DefaultMaxTime, f.req.MaxHeaderBytes
	f.a.Trust = transport.Trust{CAFile: f.req.CAFile, Insecure: f.req.Insecure}
	if f.maxTotal != "" {
		var err error
		if f.a.MaxTime, err = transport.ParseSeconds(f.maxTotal); err != nil || f.a.MaxTime < 0 {
			return tlsscan.Config{}, 0, false, usagef("--max-time %q: want seconds (30) or a duration (1m30s), 0 for no limit", f.maxTotal)
		}
	}
	return f.a.Config(arg)
}

func (e *env) runAudit(arg string, f auditFlags) error {
	if _, err := f.out.check(); err != nil {
		return err
	}
	cfg, failOn, fail, err := f.config(arg)
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
		return exitError{code: ExitThreshold, err: fmt.Errorf("finding %s is %s (--fail-on %s)", fd.ID, fd.Severity, f.a.FailOn)}
	}
	return nil
}
