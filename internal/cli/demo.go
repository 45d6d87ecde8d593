package cli

import (
	"fmt"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

type demoFlags struct {
	runs      int
	out       outputFlags
	benchTime time.Duration
	noAudit   bool
	link      linkFlags
}

func newDemoCmd(e *env) *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show what HTTPS costs and what TLS 1.3, resumption, HTTP/2 and HTTP/3 save, with no setup",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return e.runDemo(f) },
	}
	cmd.Flags().IntVar(&f.runs, "runs", demo.DefaultRuns, "measured requests per variant")
	f.out.add(cmd.Flags(), "print the result as JSON", "")
	cmd.Flags().DurationVar(&f.benchTime, "bench-time", time.Second, "load the server this long per connection mode (0: no load)")
	cmd.Flags().BoolVar(&f.noAudit, "no-audit", false, "leave out the audit")
	f.link.add(cmd.Flags())
	return cmd
}

func (e *env) runDemo(f demoFlags) error {
	if _, err := f.out.check(); err != nil {
		return err
	}
	if f.runs < 1 || f.runs > 1000 {
		return usagef("--runs %d: want 1 to 1000", f.runs)
	}
	if f.benchTime < 0 || f.benchTime > time.Minute {
		return usagef("--bench-time %v: want 0 to 1m", f.benchTime)
	}
	cfg := demo.Config{Runs: f.runs, LoadTime: f.benchTime, NoAudit: f.noAudit}
	if f.link.set() {
		// Behind a link demo runs the compare matrix only: a load time
		// given with a link flag would be ignored in silence.
		if f.link.fs.Changed("bench-time") && f.benchTime > 0 {
			return withHint(usagef("--bench-time and the link flags exclude each other: behind a link demo compares the variants and does not load the server"),
				"for load behind a link run 'httpslab serve --rtt ...' and 'httpslab bench' against it")
		}
		cfg.LinkKeys = demoMatrix()
	}
	srv, err := e.startEmbedded(f.link, lab.Config{})
	if err != nil {
		return err
	}
	defer srv.Close()
	ctx, stop := interruptible(e.ctx)
	defer stop()
	if srv.Link != nil {
		cfg.Progress = e.progress(len(cfg.LinkKeys), compare.Config{Runs: cfg.Runs})
		fmt.Fprintf(e.stderr, "httpslab: comparing %d variants on %s, interleaved (Ctrl-C stops and reports)\n", len(cfg.LinkKeys), srv.Describe())
	}
	res, runErr := demo.Run(ctx, srv, cfg)
	if cfg.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if res == nil {
		return runErr
	}
	if err := e.write(f.out, "demo", res, func() error { return report.WriteDemo(e.stdout, res) }, nil); err != nil {
		return err
	}
	switch {
	case ctx.Err() != nil:
		return e.interrupted() // the report, of what was measured, is on stdout
	case runErr != nil:
		return withHint(runErr, transport.Hint(runErr))
	}
	if err := res.Failure(); err != nil {
		return withHint(err, transport.Hint(err))
	}
	return nil
}

// demoMatrix is the matrix demo shows behind a link; tests replace it.
var demoMatrix = compare.DefaultMatrix
