package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/spf13/cobra"
)

// compareFlags are the flags of httpslab compare.
type compareFlags struct {
	c             compare.Flags
	req           requestFlags
	link          linkFlags
	httpURL, path string
	out           outputFlags
}

func newCompareCmd(e *env) *cobra.Command {
	cmd, _ := compareCommand(e)
	return cmd
}

// compareCommand returns compare's command and the flags it fills.
func compareCommand(e *env) (*cobra.Command, *compareFlags) {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare [URL]",
		Short: "What HTTPS, TLS 1.3, resumption, 0-RTT, HTTP/2 and HTTP/3 cost or save, with statistics",
		Args:  cobra.MaximumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return e.runCompare(args, &f) },
	}
	fl := cmd.Flags()
	f.req.add(fl)
	for _, n := range fixedPerVariant {
		fl.MarkHidden(n)
	}
	fl.Lookup("tls-max").Usage = "highest TLS `version`: 1.2 for a server without TLS 1.3 (its variants use TLS 1.2; HTTP/3 and 0-RTT are left out)"
	f.link.add(fl)
	fl.IntVarP(&f.c.Runs, "runs", "n", 0, "measured requests per variant (default 20; the minimum with --precision, default 10)")
	fl.IntVar(&f.c.Warmup, "warmup", 1, "unmeasured rounds first (0: none)")
	fl.StringVar(&f.c.Precision, "precision", "", "run until every median's 95% interval is within ± this, e.g. 5%")
	fl.IntVar(&f.c.MaxRuns, "max-runs", 200, "most requests per variant with --precision")
	fl.Float64Var(&f.c.Alpha, "alpha", 0.05, "significance level of the tests")
	fl.BoolVar(&f.c.Holm, "holm", false, "adjust the p-values for the number of comparisons (Holm), against false alarms in a big matrix")
	fl.StringVar(&f.c.Vary, "vary", "", "dimensions to vary: scheme, proto, tls, handshake, conn, or all (default: the standard matrix)")
	fl.StringVar(&f.httpURL, "http-url", "", "the plain-HTTP URL of the same resource (default: the URL on port 80)")
	fl.StringVar(&f.path, "path", "/", "path to request on the embedded server, e.g. /bytes/100000")
	fl.Uint64Var(&f.c.Seed, "seed", 0, "seed of the variant order (default: random, printed)")
	f.out.add(fl, "print the result, with every sample, as JSON", "print the variants' table as CSV (a header line, one line per variant, times in ms)")
	return cmd, &f
}

// defaultCompareTimeout bounds each request when --max-time is not given,
// so that a server that stops answering cannot stall a run; --max-time 0
// is curl's "no limit", as in probe.
const defaultCompareTimeout = 30 * time.Second

// fixedPerVariant are the request flags compare sets itself per variant.
// --tls-max is not among them: 1.2 says the server has no TLS 1.3.
var fixedPerVariant = []string{"tlsv1.2", "tlsv1.3", "http1.1", "http2", "http3"}

// config checks the flags and returns the runner's configuration
// without the variants, and the keys of the variants.
func (f *compareFlags) config() (compare.Config, []compare.Key, error) {
	for _, n := range fixedPerVariant {
		if fl := f.link.fs.Lookup(n); fl != nil && fl.Changed {
			return compare.Config{}, nil, usagef("--%s: compare chooses the TLS version and protocol per variant; use --vary", n)
		}
	}
	f.c.RunsGiven, f.c.TLSMax = f.link.fs.Changed("runs"), f.req.Max
	return f.c.Config()
}

func (e *env) runCompare(args []string, f *compareFlags) error {
	cfg, keys, err := f.config()
	if err != nil {
		return err
	}
	pcfg, err := f.req.probeConfig("", defaultCompareTimeout)
	if err != nil {
		return err
	}
	var target compare.Target
	var where string
	if len(args) == 0 {
		srv, err := e.startEmbeddedAt(f.link, f.path)
		if err != nil {
			return err
		}
		defer srv.Close()
		target = compare.Target{URL: srv.HTTPSURL + f.path, HTTPURL: srv.HTTPURL + f.path, Probe: pcfg}
		target.Probe.TLS.Trust, where = srv.TrustUnless(pcfg.TLS.Trust), srv.Describe()+", "+target.URL
	} else {
		if err := notBehindLink(f.link, "measured", "drop the URL to measure the embedded server, or run your server behind a link with 'httpslab lab'"); err != nil {
			return err
		}
		if f.link.fs.Changed("path") {
			return withHint(usagef("--path %s: the path is that of the URL when one is given", f.path),
				"put the path in the URL (and in --http-url); --path is for the embedded server")
		}
		if err := compare.CheckURLs(args[0], f.httpURL); err != nil {
			return err
		}
		target, where = compare.Target{URL: args[0], HTTPURL: f.httpURL, Probe: pcfg}, args[0]
	}
	if _, err := f.out.check(); err != nil {
		return err
	}
	return e.compareAndReport(target, where, keys, cfg, f.out)
}

// compareAndReport runs the comparison and prints it.
func (e *env) compareAndReport(target compare.Target, where string, keys []compare.Key, cfg compare.Config, out outputFlags) error {
	variants, closeAll, err := target.Variants(keys)
	if err != nil {
		return withHint(usageError{err}, "--http-url gives the plain-HTTP URL, or --vary without scheme leaves plain HTTP out")
	}
	defer closeAll()
	cfg.Variants = variants
	ctx, stop := interruptible(e.ctx)
	defer stop()
	cfg.Progress = e.progress(len(variants), cfg)
	fmt.Fprintf(e.stderr, "httpslab: comparing %d variants on %s, interleaved (Ctrl-C stops and reports)\n", len(variants), where)
	res, runErr := compare.Run(ctx, cfg)
	if cfg.Progress != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if res != nil {
		httpURL := target.UsedHTTPURL(res)
		if err := e.write(out, "compare", report.NewCompareJSON(res, where, target.URL, httpURL),
			func() error { return report.CompareText(e.stdout, res, where, httpURL) },
			func() error { return report.CompareCSV(e.stdout, res) }); err != nil {
			return err
		}
	}
	if runErr != nil && ctx.Err() != nil {
		return e.interrupted() // the report, of the rounds done, is on stdout
	}
	var status *compare.StatusError
	if runErr != nil && !errors.As(runErr, &status) && res != nil && res.Stop == compare.StopBaselineFailed && len(keys) > 0 && keys[0].Scheme == "http" {
		return withHint(runErr, "the plain-HTTP baseline cannot be measured; give the server's plain-HTTP URL with --http-url, or --vary without scheme to compare HTTPS variants only")
	}
	if runErr != nil {
		return withHint(runErr, compare.Hint(runErr))
	}
	if err := res.Failure(); err != nil {
		return withHint(err, compare.Hint(err)) // the report above shows what was measured
	}
	return nil
}

// progress returns a per-round progress line on a terminal, else nil.
func (e *env) progress(variants int, cfg compare.Config) func(int) {
	if f, ok := e.stderr.(*os.File); !ok || !isTerminal(f) {
		return nil
	}
	total := cfg.Rounds()
	return func(round int) {
		fmt.Fprintf(e.stderr, "\r\033[Kround %d of at most %d (%d variants)", round, total, variants)
	}
}
