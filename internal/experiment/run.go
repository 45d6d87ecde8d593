package experiment

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
	"github.com/httpslab/httpslab/internal/transport"
)

// Config is an experiment to run.
type Config struct {
	// Variants are the configurations, the baseline first (see Variants).
	Variants []Variant
	// Nginx names the nginx binary and the template's directory; each
	// variant's Config is run with them.
	Nginx lab.NginxFileConfig
	// Link, when set, puts the servers behind an emulated link with
	// this setting: each starts in the link's namespace, and the
	// measurement's connections to the URL's port go to it there.
	Link *netem.Config
	// Server, when set, says the variants are command lines (a Template
	// with Command set): each variant's Config is run as its Line, with
	// its CPUs and Wrap. Nginx is then unused.
	Server *lab.CommandConfig
	// Target is where the measurement goes; each variant is observed there.
	Target Target
	// Measure is the measurement run in each variant in each block.
	Measure Measurement
	// Command is the measurement's command line, for the report.
	Command string
	// Blocks is the number of blocks, fixed before the start; 0 means 10.
	Blocks int
	// Seed orders the variants in the blocks; 0 means one from the clock.
	Seed uint64
	// MaxTime bounds the whole experiment: no block starts that the last
	// block's duration says would end past it; 0 means no bound.
	MaxTime time.Duration
	// Alpha is the family-wise significance level; 0 means DefaultAlpha.
	Alpha float64
	// Effect is the smallest relative change worth finding (0.05: 5%);
	// 0 means DefaultEffect.
	Effect float64
	// ClientCPUs, when set, keeps this process on these CPUs ("0",
	// "0-1") for the experiment, away from the server's (Nginx.CPUs).
	ClientCPUs string
	// Progress, if set, is told what runs.
	Progress func(msg string)

	// netns is the emulated link's namespace, where the servers run and
	// their side of the kernel's TCP metrics is kept; set by behindLink.
	netns string
}

// DefaultBlocks is the number of blocks when Config.Blocks is 0.
const DefaultBlocks = 10

// answerWait bounds how long a started variant may take to answer, and
// refusedWait how long its port may refuse connections.
const (
	answerWait  = 5 * time.Second
	refusedWait = 500 * time.Millisecond
)

// Run checks and observes every variant, then measures the live ones in
// randomised blocks and analyses the differences. It returns the result
// so far with a nil error when interrupted (Stopped says so), and an
// error when the baseline itself cannot run.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	r := &Result{Command: cfg.Command, Metrics: cfg.Measure.Metrics(), Blocks: cmpInt(cfg.Blocks, DefaultBlocks),
		Seed: cfg.Seed, Start: time.Now()}
	if r.Seed == 0 {
		r.Seed = uint64(time.Now().UnixNano())
	}
	r.Env = fingerprint(cfg.Nginx.Binary, runtime.NumCPU())
	if cfg.Server != nil {
		r.Env.Server, r.Env.NginxVersion, r.Env.OpenSSL = cfg.Server.Line, "", ""
	}
	r.Env.Pinning = pinning(cfg)
	if cfg.Link != nil {
		var link *netem.Link
		var err error
		if cfg, link, err = behindLink(ctx, cfg); err != nil {
			return r, err
		}
		defer link.Close()
		r.Env.Link = link.Config.String()
	}
	if cfg.ClientCPUs != "" {
		restore, err := pinClient(cfg.ClientCPUs)
		if err != nil {
			return r, err
		}
		defer restore()
	}
	for _, v := range cfg.Variants {
		r.Variants = append(r.Variants, VariantResult{Name: v.Name, Baseline: v.Baseline, Changes: v.Changes,
			Settings: v.Settings, Edits: v.Edits})
	}
	if err := preflight(ctx, cfg, r); err != nil {
		if ctx.Err() != nil {
			r.Stopped, r.Elapsed = "interrupted", time.Since(r.Start)
			return r, nil
		}
		return r, err
	}
	runBlocks(ctx, cfg, r)
	r.Elapsed = time.Since(r.Start)
	r.Analysis = Analyze(r, cmpFloat(cfg.Alpha, DefaultAlpha), cmpFloat(cfg.Effect, DefaultEffect))
	return r, nil
}

// pinning describes the CPU pinning of the experiment.
func pinning(cfg Config) string {
	var parts []string
	if cfg.Nginx.CPUs != "" {
		parts = append(parts, "server on CPUs "+cfg.Nginx.CPUs)
	}
	if cfg.ClientCPUs != "" {
		parts = append(parts, "client on CPUs "+cfg.ClientCPUs)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func cmpFloat(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

func cmpInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// preflight starts each variant once, observes it and sets its status.
func preflight(ctx context.Context, cfg Config, r *Result) error {
	for i, v := range cfg.Variants {
		progress(cfg, "checking %s", v.Name)
		vr := &r.Variants[i]
		err := withInstance(ctx, cfg, r, i, func(p instance) error {
			vr.Warnings = p.warnings()
			obs, err := observe(ctx, cfg.Target)
			vr.Observation = obs
			return err
		})
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			vr.Status, vr.Evidence = Failed, failure(err)
			if v.Baseline {
				return fmt.Errorf("the baseline (%s) does not run: %w", v.Name, err)
			}
			continue
		}
		if v.Baseline {
			vr.Status, vr.Evidence = Base, "the reference"
			continue
		}
		if cfg.Server != nil {
			vr.Status, vr.Evidence = verifyCommand(vr.Observation, r.Variants[0].Observation)
			continue
		}
		vr.Status, vr.Evidence = verify(v, vr.Observation, r.Variants[0].Observation, vr.Warnings)
	}
	return nil
}

// failure is the message of a variant that did not run: nginx's own
// words where nginx refused it.
func failure(err error) string {
	var ce *lab.NginxCheckError
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}

func progress(cfg Config, format string, args ...any) {
	if cfg.Progress != nil {
		cfg.Progress(fmt.Sprintf(format, args...))
	}
}

// runBlocks measures the live variants, one block at a time, each block
// in a new random order.
func runBlocks(ctx context.Context, cfg Config, r *Result) {
	var live []int
	for i, v := range r.Variants {
		if v.Status.Measured() {
			live = append(live, i)
		}
	}
	rng := rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))
	var last time.Duration
	for b := 0; b < r.Blocks; b++ {
		if ctx.Err() != nil {
			r.Stopped = "interrupted"
			return
		}
		if cfg.MaxTime > 0 && time.Since(r.Start)+last > cfg.MaxTime {
			r.Stopped = "max-time"
			return
		}
		start := time.Now()
		order := append([]int(nil), live...)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		r.Order = append(r.Order, order)
		for i := range r.Variants {
			r.Variants[i].Samples = append(r.Variants[i].Samples, nil)
			r.Variants[i].BlockErrors = append(r.Variants[i].BlockErrors, "")
		}
		for _, i := range order {
			progress(cfg, "block %d/%d: %s", b+1, r.Blocks, r.Variants[i].Name)
			measureOnce(ctx, cfg, r, b, i)
			if ctx.Err() != nil {
				r.Stopped = "interrupted"
				return
			}
		}
		last = time.Since(start)
	}
}

// measureOnce runs variant i in block b: a fresh instance, a warm-up and
// the measurement.
func measureOnce(ctx context.Context, cfg Config, r *Result, b, i int) {
	vr := &r.Variants[i]
	var s Sample
	err := withInstance(ctx, cfg, r, i, func(p instance) error {
		if err := cfg.Measure.WarmUp(ctx); err != nil {
			return err
		}
		var err error
		pids := []int{p.PID()}
		noise := startNoise(pids)
		s, err = cfg.Measure.Run(ctx, pids)
		var server time.Duration
		var ok bool
		s.Noise, server, ok = noise.stop()
		if ok && s.Requests > 0 && len(s.Values) > 0 {
			s.Values["server CPU/request"] = float64(server) / float64(time.Microsecond) / float64(s.Requests)
		}
		if isNginx(p) {
			// nginx's error log is quiet unless something is wrong; a
			// command's output (caddy's request log, serve's URLs) is not,
			// and is shown where the server fails instead.
			vr.ErrorLog = p.log(10)
		}
		return err
	})
	switch {
	case ctx.Err() != nil:
	case err != nil:
		vr.BlockErrors[b] = failure(err)
	case len(s.Values) == 0:
		vr.BlockErrors[b] = "no request succeeded: " + s.Error
	default:
		vr.Samples[b] = &s
	}
}

// withInstance flushes the kernel's TCP metrics for the target, starts
// variant i's server (a private nginx or its command), waits until it
// answers, runs fn and stops the instance, whatever happens.
func withInstance(ctx context.Context, cfg Config, r *Result, i int, fn func(p instance) error) error {
	r.Env.TCPMetrics = flushTCPMetrics(ctx, cfg.Target, cfg.netns)
	p, err := startInstance(ctx, cfg, cfg.Variants[i])
	if err != nil {
		return err
	}
	defer p.Close()
	if err := waitAnswer(ctx, cfg.Target, p); err != nil {
		if log := p.log(5); len(log) > 0 {
			return fmt.Errorf("%w; the server's log ends with: %s", err, log[len(log)-1])
		}
		return err
	}
	return fn(p)
}

// NoAnswerError is a started variant that did not answer where the
// measurement goes: the template listens elsewhere, or the handshake
// fails (a certificate the measurement does not trust).
type NoAnswerError struct {
	Addr string
	Err  error
}

func (e *NoAnswerError) Error() string {
	if tlsRefused(e.Err) {
		return fmt.Sprintf("the server on %s failed the TLS handshake: %v", e.Addr, e.Err)
	}
	if errors.Is(e.Err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("nothing listens on %s once the server runs: %v", e.Addr, e.Err)
	}
	return fmt.Sprintf("the server did not answer on %s within %s: %v", e.Addr, answerWait, e.Err)
}

func (e *NoAnswerError) Unwrap() error { return e.Err }

// waitAnswer waits until the target accepts a connection and, for
// https, completes a TLS handshake.
func waitAnswer(ctx context.Context, t Target, p instance) error {
	u, err := url.Parse(t.URL)
	if err != nil {
		return err
	}
	addr := transport.HostPort(u)
	start := time.Now()
	for {
		err := dialOnce(ctx, t, u, addr)
		if err == nil {
			return nil
		}
		if exit := p.exited(); exit != nil {
			return exit
		}
		// nginx writes its pid file after binding its sockets, so a port
		// still refused a moment later is one the template does not
		// listen on: no need to wait the whole answerWait for it. Any
		// other server may bind whenever it is ready.
		refused := errors.Is(err, syscall.ECONNREFUSED) && time.Since(start) > refusedWait && isNginx(p)
		if tlsRefused(err) || refused || time.Since(start) > answerWait {
			return &NoAnswerError{Addr: addr, Err: err}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tlsRefused reports a handshake that the server answered and failed (an
// alert it sent, a certificate not trusted): waiting longer would not
// help. crypto/tls reports a received alert as a net.OpError "remote
// error".
func tlsRefused(err error) bool {
	var op *net.OpError
	var verify *tls.CertificateVerificationError
	return errors.As(err, &op) && op.Op == "remote error" || errors.As(err, &verify)
}

func dialOnce(ctx context.Context, t Target, u *url.URL, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if u.Scheme != "https" {
		c, err := t.dial(ctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err
	}
	cfg := &tls.Config{}
	if t.TLS != nil {
		cfg = t.TLS.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	c, err := t.dialer().DialTLS(ctx, "tcp", addr, cfg)
	if err == nil {
		c.Close()
	}
	return err
}
