package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

// compareFlags are the flags of httpslab compare.
type compareFlags struct {
	req       requestFlags
	link      linkFlags
	runs      int
	warmup    int
	maxRuns   int
	precision string
	alpha     float64
	holm      bool
	vary      string
	httpURL   string
	path      string
	seed      uint64
	out       outputFlags
}

func newCompareCmd(e *env) *cobra.Command {
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
	fl.IntVarP(&f.runs, "runs", "n", 0, "measured requests per variant (default 20; the minimum with --precision, default 10)")
	fl.IntVar(&f.warmup, "warmup", 1, "unmeasured rounds first (0: none)")
	fl.StringVar(&f.precision, "precision", "", "run until every median's 95% interval is within ± this, e.g. 5%")
	fl.IntVar(&f.maxRuns, "max-runs", 200, "most requests per variant with --precision")
	fl.Float64Var(&f.alpha, "alpha", 0.05, "significance level of the tests")
	fl.BoolVar(&f.holm, "holm", false, "adjust the p-values for the number of comparisons (Holm), against false alarms in a big matrix")
	fl.StringVar(&f.vary, "vary", "", "dimensions to vary: scheme, proto, tls, handshake, conn, or all (default: the standard matrix)")
	fl.StringVar(&f.httpURL, "http-url", "", "the plain-HTTP URL of the same resource (default: the URL on port 80)")
	fl.StringVar(&f.path, "path", "/", "path to request on the embedded server, e.g. /bytes/100000")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the variant order (default: random, printed)")
	f.out.add(fl, "print the result, with every sample, as JSON", "print the variants' table as CSV (a header line, one line per variant, times in ms)")
	return cmd
}

// defaultCompareTimeout bounds each request when --max-time is not given,
// so that a server that stops answering cannot stall a run; --max-time 0
// is curl's "no limit", as in probe.
const defaultCompareTimeout = 30 * time.Second

// fixedPerVariant are the request flags compare sets itself per variant.
// --tls-max is not among them: 1.2 says the server has no TLS 1.3.
var fixedPerVariant = []string{"tlsv1.2", "tlsv1.3", "http1.1", "http2", "http3"}

// compareConfig checks the flags and returns the runner's configuration
// without the variants.
func (f *compareFlags) compareConfig() (compare.Config, error) {
	for _, n := range fixedPerVariant {
		if fl := f.link.fs.Lookup(n); fl != nil && fl.Changed {
			return compare.Config{}, usagef("--%s: compare chooses the TLS version and protocol per variant; use --vary", n)
		}
	}
	cfg := compare.Config{Runs: f.runs, Warmup: f.warmup, MaxRuns: f.maxRuns, Alpha: f.alpha, Seed: f.seed, Holm: f.holm}
	switch {
	// The comparisons hold all n² pairwise differences of two variants
	// in memory, so -n is bounded like --max-runs.
	case f.runs < 0 || f.runs > 2000 || (f.runs == 0 && f.link.fs.Changed("runs")):
		return cfg, usagef("-n %d: want 1 to 2000", f.runs)
	case f.maxRuns < 2 || f.maxRuns > 2000:
		return cfg, usagef("--max-runs %d: want 2 to 2000", f.maxRuns)
	case f.warmup < 0 || f.warmup > 100:
		return cfg, usagef("--warmup %d: want 0 to 100", f.warmup)
	case !(f.alpha > 0 && f.alpha < 0.5): // NaN fails both
		return cfg, usagef("--alpha %v: want a level between 0 and 0.5, e.g. 0.05", f.alpha)
	}
	if f.warmup == 0 {
		cfg.Warmup = -1
	}
	if f.precision != "" {
		p, err := parsePercent(f.precision)
		if err != nil || !(p > 0 && p < 1) { // NaN fails both
			return cfg, usagef("--precision %q: want a percentage such as 5%%", f.precision)
		}
		cfg.Precision = p
		if f.runs > f.maxRuns {
			return cfg, usagef("-n %d is above --max-runs %d", f.runs, f.maxRuns)
		}
	}
	return cfg, nil
}

// parsePercent reads "5%" or "5" as 0.05.
func parsePercent(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	return v / 100, err
}

// checkCompareURL checks a URL given to compare as probe would, so that
// an error names the URL the user gave, not the plain-HTTP one derived
// from it ("https://" failed as "setting up http h1: URL \"http:\": no
// host").
func checkCompareURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	return transport.CheckURL(u)
}

// keys returns the matrix the flags ask for: with --tls-max 1.2, for a
// server without TLS 1.3, its variants use TLS 1.2 (every other variant
// of compare would fail against it).
func (f *compareFlags) keys() ([]compare.Key, error) {
	noTLS13 := false
	switch v := f.req.tlsMax; v {
	case "", "1.3":
	case "1.2":
		noTLS13 = true
	default:
		return nil, withHint(usagef("--tls-max %s: compare measures TLS 1.2 and 1.3", v),
			"--tls-max 1.2 is for a server without TLS 1.3")
	}
	keys, err := compare.Plan(f.vary, noTLS13)
	if errors.Is(err, compare.ErrOneTLSVersion) {
		return nil, usagef("--tls-max 1.2 with --vary %s: %v; leave tls out of --vary", f.vary, err)
	}
	if err != nil {
		return nil, usageError{err}
	}
	return keys, nil
}

func (e *env) runCompare(args []string, f *compareFlags) error {
	cfg, err := f.compareConfig()
	if err != nil {
		return err
	}
	keys, err := f.keys()
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
		t, describe, closeSrv, err := e.embeddedTarget(f.link, f.path)
		if err != nil {
			return err
		}
		defer closeSrv()
		target, where = t, describe
		trust := target.Probe.TLS.RootCAs
		target.Probe = pcfg
		if pcfg.TLS.CAFile == "" {
			target.Probe.TLS.RootCAs = trust // --cacert replaces the server's own CA
		}
	} else {
		if f.link.set() {
			return withHint(usagef("the link flags put the embedded server behind an emulated link; a URL is measured as it is"),
				"drop the URL to measure the embedded server, or run your server behind a link with 'httpslab lab'")
		}
		if !strings.HasPrefix(strings.ToLower(args[0]), "https://") {
			return withHint(usagef("compare %s: want an https:// URL", args[0]),
				"the plain-HTTP variants use --http-url, or the https URL's host on port 80")
		}
		if err := checkCompareURL(args[0]); err != nil {
			return usagef("compare %s: %v", args[0], err)
		}
		if f.link.fs.Changed("path") {
			return withHint(usagef("--path %s: the path is that of the URL when one is given", f.path),
				"put the path in the URL (and in --http-url); --path is for the embedded server")
		}
		if f.httpURL != "" && !strings.HasPrefix(strings.ToLower(f.httpURL), "http://") {
			return withHint(usagef("--http-url %s: want an http:// URL", f.httpURL),
				"--http-url is the plain-HTTP URL of the same resource, e.g. http://HOST:8080/")
		}
		if f.httpURL != "" {
			if err := checkCompareURL(f.httpURL); err != nil {
				return usagef("--http-url %s: %v", f.httpURL, err)
			}
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
		if err := e.write(out, "compare", compareDocument(res, target, where), func() error { return e.writeCompare(res, target, where) },
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

// writeCompare prints the text report.
func (e *env) writeCompare(res *compare.Result, target compare.Target, where string) error {
	httpURL := compareHTTPURL(res, target)
	fmt.Fprintf(e.stdout, "compare %s\n", where)
	if httpURL != "" {
		fmt.Fprintf(e.stdout, "plain HTTP from %s\n", httpURL)
	}
	fmt.Fprintln(e.stdout)
	return report.Compare(e.stdout, res)
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

// embeddedTarget starts the embedded server, behind the emulated link
// when link flags are set, and returns the target for path on it, a line
// that says where it runs, and the function that stops it.
func (e *env) embeddedTarget(lf linkFlags, path string) (compare.Target, string, func(), error) {
	if !strings.HasPrefix(path, "/") {
		return compare.Target{}, "", nil, usagef("--path %q: want a path starting with /", path)
	}
	srv, err := e.startEmbedded(lf, lab.Config{})
	if err != nil {
		return compare.Target{}, "", nil, err
	}
	t := compare.Target{URL: srv.HTTPSURL + path, HTTPURL: srv.HTTPURL + path}
	t.Probe.TLS = srv.Trust()
	return t, srv.Describe() + ", " + srv.HTTPSURL + path, func() { srv.Close() }, nil
}

// compareHTTPURL is the plain-HTTP URL the comparison used, if any.
func compareHTTPURL(res *compare.Result, target compare.Target) string {
	if slices.ContainsFunc(res.Variants, func(v compare.VariantResult) bool { return v.Key.Scheme == "http" }) {
		u, _ := target.PlainURL()
		return u
	}
	return target.HTTPURL
}

// compareDocument is the --json document of a comparison.
func compareDocument(res *compare.Result, target compare.Target, where string) report.CompareJSON {
	return report.NewCompareJSON(res, where, target.URL, compareHTTPURL(res, target))
}
