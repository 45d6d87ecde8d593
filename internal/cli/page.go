package cli

import (
	"fmt"
	"os"
	"slices"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/spf13/cobra"
)

// pageFlags are the flags of httpslab page.
type pageFlags struct {
	req             requestFlags
	link            linkFlags
	httpURL         string
	path, har, urls string
	p               page.Flags
	out             outputFlags
	warm            bool
	seed            uint64
}

func newPageCmd(e *env) *cobra.Command {
	cmd, _ := pageCommand(e)
	return cmd
}

// pageCommand is page's command and the flags it fills; experiment
// parses a page command line after its -- with it.
func pageCommand(e *env) (*cobra.Command, *pageFlags) {
	var f pageFlags
	cmd := &cobra.Command{
		Use:   "page [URL]",
		Short: "Load a whole page as a browser's network stack would, per protocol, with statistics and a waterfall",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.urls != "" {
				return e.runPageSurvey(args, &f)
			}
			return e.runPage(args, &f)
		},
	}
	fl := cmd.Flags()
	f.req.add(fl)
	for _, n := range []string{"request", "data", "data-binary"} {
		fl.MarkHidden(n)
	}
	fl.Lookup("max-time").Usage = "give up a load after this long, in `seconds` or with a unit (default 2m; 0: never)"
	f.link.add(fl)
	fl.StringVar(&f.p.Protocols, "protocols", "", "load over each of these, interleaved: http, h1, h2, h3 (comma-separated)")
	fl.IntVarP(&f.p.Rounds, "rounds", "n", page.DefaultRounds, "measured loads per protocol")
	fl.IntVar(&f.p.Warmup, "warmup", 1, "unmeasured rounds first (0: none)")
	fl.StringVar(&f.p.Engine, "engine", "httpslab", "what loads the page: httpslab (its own scheduler) or chromium (a headless Chromium per load)")
	fl.BoolVar(&f.warm, "warm", false, "resume the TLS sessions of the previous load over the same protocol")
	fl.StringVar(&f.httpURL, "http-url", "", "the page's plain-HTTP URL for the http protocol (default: the URL on port 80)")
	fl.StringVar(&f.path, "path", "/page/images?n=360&size=18300", "page to load from the embedded server")
	fl.IntVar(&f.p.MaxConnsPerOrigin, "max-conns-per-origin", page.DefaultMaxConnsPerOrigin, "HTTP/1.1 connections per origin")
	fl.IntVar(&f.p.MaxStreams, "max-streams", page.DefaultMaxStreams, "concurrent requests on an HTTP/2 or HTTP/3 connection")
	fl.StringVar(&f.p.ResponseCost, "response-cost", "", "model a browser's processing of each response: this `duration` for its headers, on one thread that takes the responses as they arrive (default: none)")
	fl.StringVar(&f.p.ResponseCostPerMB, "response-cost-per-mb", "", "model a browser's processing of the bytes: this `duration` per MB of body, on the same thread as they arrive (default: none)")
	fl.StringVar(&f.p.ResponseDelay, "response-delay", "", "model a browser's hand-offs: each response processed no sooner than this `duration` after its last byte (default: none)")
	fl.IntVar(&f.p.TightLimit, "tight-limit", 0, "model a browser's tight mode: at most `n` low-priority requests (images, async scripts) in flight at the start of the load (Chromium: 2; default: none)")
	fl.StringVar(&f.p.TightUntil, "tight-until", "", "end the tight mode this `duration` after the document completed (default: with the document)")
	fl.StringVar(&f.p.TightBurstCost, "tight-burst-cost", "", "end the tight mode later by this `duration` per request it holds then: the browser's network service takes the burst one at a time (default: none)")
	fl.IntVar(&f.p.MaxResources, "max-resources", page.DefaultMaxResources, "resources of one load, the document included")
	fl.StringVar(&f.p.RequestTimeout, "request-timeout", "30s", "give up on a request when nothing of its response has come for this long (a slow response that keeps coming is waited for)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the protocol order (default: random)")
	f.out.add(fl, "print the result as JSON (schema httpslab/page/v1)", "")
	fl.StringVar(&f.urls, "urls", "", "load each page of `file` (one URL a line, optionally its plain-HTTP URL after it) and report what each protocol adds across pages")
	fl.StringVar(&f.har, "har", "", "write each protocol's median load as HAR 1.2 to `file`, for browser tools")
	return cmd, &f
}

func (e *env) runPage(args []string, f *pageFlags) error {
	c, where, closeSrv, err := e.pageCompare(args, f)
	if err != nil {
		return err
	}
	defer closeSrv()
	har, err := createHAR(f.har) // after every usage check: no empty file for a bad command line
	if err != nil {
		return err
	}
	if _, err := f.out.check(); err != nil {
		return err
	}
	if har != nil {
		defer har.Close() // after a failed write; writePage closes it otherwise
	}
	ctx, stop := interruptible(e.ctx)
	defer stop()
	fmt.Fprintf(e.stderr, "httpslab: loading %s over %s, %d rounds (Ctrl-C stops and reports)\n", where, page.JoinProtocols(c.Protocols), f.p.Rounds)
	res, runErr := c.Run(ctx)
	if res != nil {
		if err := e.writePage(res, f, har); err != nil {
			return err
		}
	}
	switch {
	case runErr == nil:
		return nil
	case ctx.Err() != nil:
		return e.interrupted()
	}
	return withHint(runErr, page.Hint(runErr))
}

// writePage prints the result, and writes the HAR file when har is not
// nil.
func (e *env) writePage(res *page.Result, f *pageFlags, har *os.File) error {
	err := e.write(f.out, "page", res, func() error { return report.Page(e.stdout, res, 60) }, nil)
	if err != nil {
		return err
	}
	return writeHAR(har, func() error { return report.WritePageHAR(har, res, versionString()) })
}

// writeHAR writes the HAR file har (none when nil) with write, and
// closes it.
func writeHAR(har *os.File, write func() error) error {
	if har == nil {
		return nil
	}
	err := write()
	if cerr := har.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", har.Name(), err)
	}
	return nil
}

// pageCompare turns the flags into the runner, starting the embedded
// server when no URL is given; the returned function stops it.
func (e *env) pageCompare(args []string, f *pageFlags) (page.Compare, string, func(), error) {
	c := page.Compare{HTTPURL: f.httpURL, Rounds: f.p.Rounds, Warmup: f.p.CompareWarmup(), Warm: f.warm, Seed: f.seed}
	closeSrv := func() {}
	if err := f.getOnly(); err != nil {
		return c, "", closeSrv, err
	}
	cfg, err := f.loadConfig()
	if err != nil {
		return c, "", closeSrv, err
	}
	where := ""
	if len(args) == 0 {
		srv, err := e.startEmbedded(f.link, lab.Config{})
		if err != nil {
			return c, "", closeSrv, err
		}
		closeSrv = func() { srv.Close() }
		cfg.URL, c.HTTPURL, where = srv.HTTPSURL+f.path, srv.HTTPURL+f.path, srv.Describe()+", "+f.path
		if f.req.CAFile == "" {
			cfg.TLS.RootCAs = srv.Trust().RootCAs
		}
	} else {
		if err := notBehindLink(f.link, "loaded", "drop the URL to load the embedded server's test pages"); err != nil {
			return c, "", closeSrv, err
		}
		if err := compare.CheckURL(args[0]); err != nil {
			return c, "", closeSrv, usagef("page %s: %v", args[0], err)
		}
		cfg.URL, where = args[0], args[0]
	}
	c.Load = cfg
	if c.Protocols, err = f.p.ProtocolList(f.req.Curl, cfg.URL); err != nil {
		closeSrv()
		return c, "", func() {}, err
	}
	if slices.Contains(c.Protocols, page.HTTP) && c.HTTPURL == "" {
		if _, err := compare.HTTPURLOf(cfg.URL); err != nil {
			closeSrv()
			return c, "", func() {}, withHint(usagef("--protocols %s: %v", f.p.Protocols, err),
				"give the page's plain-HTTP URL with --http-url")
		}
	}
	return c, where, closeSrv, nil
}

// getOnly refuses the request flags that page hides: it sends GET
// requests.
func (f *pageFlags) getOnly() error {
	for _, n := range []string{"request", "data", "data-binary"} {
		if f.link.fs.Changed(n) {
			return usagef("--%s: page sends GET requests as a browser does", n)
		}
	}
	return nil
}

// loadConfig reads the TLS, route, header and limit flags.
func (f *pageFlags) loadConfig() (page.Config, error) { return f.p.Config(f.req.Curl) }
