package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/experiment"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type experimentFlags struct {
	x    experiment.Flags
	out  outputFlags
	link linkFlags
}

func newExperimentCmd(e *env) *cobra.Command {
	var f experimentFlags
	cmd := &cobra.Command{
		Use:   "experiment --nginx FILE|--server COMMAND --vary 'NAME=V1|V2' [flags] -- bench|probe|page|compare ARGS...",
		Short: "Which nginx (or other server) setting really helps: variants measured in randomised blocks",
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.x.File != "" {
				if len(args) > 0 || f.x.Nginx != "" || f.x.Server != "" || len(f.x.Design.Varies) > 0 {
					return usagef("--file holds the template, the variants and the measurement: give no --nginx, --vary or -- with it")
				}
				measure, err := f.x.ReadFile(stdin)
				if err != nil {
					return err
				}
				return e.runExperiment(f, measure)
			}
			if cmd.ArgsLenAtDash() != 0 || len(args) == 0 {
				return withHint(usagef("no measurement: give a bench, probe, page or compare command line after --"),
					"e.g. httpslab experiment --nginx nginx.conf --vary 'ssl_session_tickets=off|on' -- bench --conn resume -d 3s https://localhost:8443/")
			}
			return e.runExperiment(f, args)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{withHint(err, "the measurement's own flags go after --: experiment [flags] -- bench [bench flags] URL")}
	})
	fl := cmd.Flags()
	fl.StringVar(&f.x.Nginx, "nginx", "", "the template: a complete nginx.conf `file`")
	fl.StringVar(&f.x.Server, "server", "", "the template: a server's `command` line whose {NAME} each --vary NAME fills (instead of --nginx)")
	fl.StringVar(&f.x.File, "file", "", "an experiment `file` (TOML): template, named variants of any number of directives, measurement")
	fl.StringArrayVar(&f.x.Design.Varies, "vary", nil, "'NAME=V1|V2|...': the directive NAME at each value, the first the baseline's (repeatable)")
	fl.BoolVar(&f.x.Design.AllAtOnce, "all-at-once", false, "add a variant with every --vary at its last value")
	fl.BoolVar(&f.x.Design.Factorial, "factorial", false, "a variant for every combination of the --vary values (at most 64)")
	fl.BoolVar(&f.x.Design.Together, "together", false, "the --vary move together: variant i sets every directive to its i-th value (a certificate and its key)")
	fl.IntVarP(&f.x.Blocks, "blocks", "n", experiment.DefaultBlocks, "number of blocks, each running every variant once")
	fl.Uint64Var(&f.x.Seed, "seed", 0, "seed of the blocks' random order (0: from the clock)")
	fl.StringVar(&f.x.MaxTime, "max-time", "", "start no block that would end after this long, in seconds or with a unit (20m)")
	fl.StringVar(&f.x.ServerCPUs, "server-cpus", "", "keep nginx on these `CPUs` (taskset -c syntax: 1, 2-3)")
	fl.StringVar(&f.x.ClientCPUs, "client-cpus", "", "keep the measuring client on these `CPUs`, apart from the server's")
	fl.StringVar(&f.x.NginxBinary, "nginx-binary", "", "the nginx `executable` (default: nginx on PATH)")
	fl.Float64Var(&f.x.Effect, "effect", experiment.DefaultEffect*100, "the smallest change worth finding, in `percent`: a ~ whose interval reaches past it is called too noisy")
	f.link.add(fl)
	f.out.add(fl, "write the result as JSON (schema httpslab/experiment/v1, raw samples per block)", "")
	return cmd
}

func (e *env) runExperiment(f experimentFlags, args []string) error {
	if _, err := f.out.check(); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if cfg.Measure, cfg.Target, err = e.measurement(args); err != nil {
		return err
	}
	cfg.Command = strings.Join(args, " ")
	ctx, stop := interruptible(e.ctx)
	defer stop()
	if tty, ok := e.stderr.(*os.File); ok && isTerminal(tty) && !f.out.json {
		cfg.Progress = func(msg string) { fmt.Fprintf(e.stderr, "\r\033[K%s", msg) }
		defer fmt.Fprint(e.stderr, "\r\033[K")
	}
	res, err := experiment.Run(ctx, cfg)
	var noAnswer *experiment.NoAnswerError
	switch {
	case errors.As(err, new(*experiment.LinkError)):
		return linkHint(errors.Unwrap(err))
	case errors.As(err, &noAnswer) && cfg.Link != nil:
		return withHint(err, "behind the link the server runs in its own namespace: it must listen on the port alone (listen 8443 ssl) or on $HTTPSLAB_SERVER_IP, not on 127.0.0.1")
	case errors.As(err, &noAnswer):
		return withHint(err, fmt.Sprintf("the template must listen where the measured URL points (%s), with a certificate the measurement trusts (--cacert, -k)", noAnswer.Addr))
	case err != nil && f.x.Server != "":
		return withHint(err, "run the baseline's command on its own: "+string(cfg.Variants[0].Config))
	case err != nil:
		return withHint(err, "check the template on its own: nginx -t -c "+f.x.Nginx)
	}
	if err := e.write(f.out, "experiment", report.ExperimentResultJSON(res), func() error { return report.Experiment(e.stdout, res) }, nil); err != nil {
		return err
	}
	if res.Stopped == "interrupted" {
		return e.interrupted()
	}
	return nil
}

// config reads the template and the flags into an experiment.Config
// without its measurement.
func (f experimentFlags) config() (experiment.Config, error) {
	cfg, err := f.x.Config(stdin)
	if err != nil || !f.link.set() {
		return cfg, err
	}
	link, err := linkConfig(f.link)
	cfg.Link = &link
	return cfg, err
}

// measurement reads the command line after -- (bench, probe -n, page or compare) with
// that command's own flags and checks into a measurement run in this
// process by that command's own code: the numbers are those the command
// would print, with no process start or output parsing in between.
func (e *env) measurement(args []string) (experiment.Measurement, experiment.Target, error) {
	switch args[0] {
	case "bench":
		return e.benchMeasure(args[1:])
	case "probe":
		return e.probeMeasure(args[1:])
	case "page":
		return e.pageMeasure(args[1:])
	case "compare":
		return e.compareMeasure(args[1:])
	}
	return nil, experiment.Target{}, withHint(usagef("measurement %q: want bench, probe, page or compare", args[0]),
		"e.g. -- bench --conn resume -d 3s https://localhost:8443/, or -- probe -n 20 https://localhost:8443/")
}

// parseInner parses a command line of another command's flags.
func parseInner(fl *pflag.FlagSet, name string, args []string) error {
	fl.Usage = func() {}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return withHint(usagef("%s's help inside experiment", name), "see 'httpslab "+name+" --help'")
		}
		return usagef("%s: %v", name, err)
	}
	return nil
}

func (e *env) benchMeasure(args []string) (experiment.Measurement, experiment.Target, error) {
	var t experiment.Target
	cmd, f := benchCommand(e)
	fl := cmd.Flags()
	if err := parseInner(fl, "bench", args); err != nil {
		return nil, t, err
	}
	if f.out.json || f.out.csv || f.out.html != "" || len(f.l.FailIf) > 0 || len(f.l.ServerPIDs) > 0 || f.l.Threads > 0 {
		return nil, t, withHint(usagef("bench's --json, --csv, --html, --fail-if, --server-pid and -t do not apply inside experiment"),
			"experiment measures the server's CPU itself and writes its own --json")
	}
	urls, err := f.urls(fl.Args())
	if err != nil {
		return nil, t, err
	}
	cfg, _, err := f.config(urls)
	if err != nil {
		return nil, t, err
	}
	tc, err := cfg.TLS.Config()
	if err != nil {
		return nil, t, usageError{err}
	}
	return experiment.Bench{Config: cfg}, experiment.Target{URL: urls[0], TLS: tc, Routes: cfg.Routes}, nil
}

func (e *env) probeMeasure(args []string) (experiment.Measurement, experiment.Target, error) {
	var t experiment.Target
	cmd, f := probeCommand(e)
	fl := cmd.Flags()
	if err := parseInner(fl, "probe", args); err != nil {
		return nil, t, err
	}
	if f.out.json || f.out.csv || f.out.html != "" || f.writeOut != "" || f.har != "" || f.p.Location {
		return nil, t, withHint(usagef("probe's --json, --csv, --html, -w, --har and -L do not apply inside experiment"),
			"experiment writes its own --json; give the final URL rather than -L")
	}
	if fl.NArg() != 1 {
		return nil, t, usagef("probe: want one URL, got %d", fl.NArg())
	}
	p, err := f.p.Plan()
	if err != nil {
		return nil, t, err
	}
	cfg, err := f.config(fl.Arg(0))
	if err != nil {
		return nil, t, err
	}
	tc, err := cfg.TLS.Config()
	if err != nil {
		return nil, t, usageError{err}
	}
	return experiment.Probe{Config: cfg, Plan: p}, experiment.Target{URL: cfg.URL, TLS: tc, Routes: cfg.Routes}, nil
}

func (e *env) pageMeasure(args []string) (experiment.Measurement, experiment.Target, error) {
	var t experiment.Target
	cmd, f := pageCommand(e)
	fl := cmd.Flags()
	if err := parseInner(fl, "page", args); err != nil {
		return nil, t, err
	}
	if f.out.json || f.out.csv || f.har != "" || f.urls != "" || f.out.html != "" || f.link.set() {
		return nil, t, withHint(usagef("page's --json, --csv, --har, --urls, --html and link flags do not apply inside experiment"),
			"experiment writes its own --json and takes the link flags itself, before --")
	}
	if fl.Changed("warmup") {
		return nil, t, withHint(usagef("page's --warmup does not apply inside experiment"),
			"experiment warms every variant up itself before its measured blocks")
	}
	if fl.NArg() != 1 {
		return nil, t, usagef("page: want the page's URL, got %d arguments", fl.NArg())
	}
	cfg, err := f.loadConfig()
	if err != nil {
		return nil, t, err
	}
	cfg.URL = fl.Arg(0)
	ps, err := f.p.ProtocolList(f.req.Curl, cfg.URL)
	if err != nil {
		return nil, t, err
	}
	if len(ps) != 1 {
		return nil, t, withHint(usagef("page: one protocol inside experiment, got %s", page.JoinProtocols(ps)),
			"give one with --protocols h2 or --http1.1, --http2, --http3; the variants are the server's")
	}
	cfg.Protocol = ps[0]
	tc, err := cfg.TLS.Config()
	if err != nil {
		return nil, t, usageError{err}
	}
	return experiment.Page{Config: cfg, Loads: f.p.Rounds, Warm: f.warm},
		experiment.Target{URL: cfg.URL, TLS: tc, Routes: cfg.Dialer.Routes}, nil
}

func (e *env) compareMeasure(args []string) (experiment.Measurement, experiment.Target, error) {
	var t experiment.Target
	cmd, f := compareCommand(e)
	fl := cmd.Flags()
	if err := parseInner(fl, "compare", args); err != nil {
		return nil, t, err
	}
	if f.out.json || f.out.csv || f.out.html != "" || f.link.set() || fl.Changed("path") || fl.NArg() != 1 {
		return nil, t, withHint(usagef("compare inside experiment: want the server's URL, and none of --json, --csv, --html, --path or the link flags"),
			"experiment writes its own --json and takes the link flags itself, before --")
	}
	cfg, keys, err := f.config()
	if err == nil {
		err = compare.CheckURLs(fl.Arg(0), f.httpURL)
	}
	if err != nil {
		return nil, t, err
	}
	p, err := f.req.probeConfig("", defaultCompareTimeout)
	if err != nil {
		return nil, t, err
	}
	m, t, err := experiment.NewCompare(cfg, keys, compare.Target{URL: fl.Arg(0), HTTPURL: f.httpURL, Probe: p})
	if err != nil {
		return nil, t, withHint(usageError{err}, "--http-url gives the plain-HTTP URL, or --vary without scheme leaves plain HTTP out")
	}
	return m, t, nil
}
