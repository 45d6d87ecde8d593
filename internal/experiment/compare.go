package experiment

import (
	"context"
	"fmt"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/transport"
)

// Compare measures with compare's runner, the code behind 'httpslab
// compare URL': its client-side variants (scheme, protocol, TLS version,
// handshake, connection reuse) interleaved against each server variant.
// Each of compare's rows gives one metric, the median total time of its
// requests, so the verdicts say how a server setting changes each of
// them (what resumption saves once tickets are on, for one).
type Compare struct {
	// Config is compare's setting without its variants. Its warm-up
	// rounds are not run: the experiment's own warm-up (one round of
	// every row) runs just before on the same server.
	Config compare.Config
	// Keys are compare's rows, the first its baseline.
	Keys   []compare.Key
	Target compare.Target
}

// NewCompare checks that every row of keys can be set up against target
// (a plain-HTTP row needs a plain-HTTP URL) and returns the measurement
// and where it goes.
func NewCompare(cfg compare.Config, keys []compare.Key, target compare.Target) (Compare, Target, error) {
	tc, err := target.Probe.TLS.Config()
	if err != nil {
		return Compare{}, Target{}, err
	}
	_, closeAll, err := target.Variants(keys)
	if err != nil {
		return Compare{}, Target{}, err
	}
	closeAll()
	return Compare{Config: cfg, Keys: keys, Target: target}, Target{URL: target.URL, TLS: tc, Routes: target.Probe.Routes}, nil
}

// Metrics implements Measurement: one per row, named after it ("https
// h2 TLS1.3 resumed p50"), then the server's CPU.
func (c Compare) Metrics() []Metric {
	var ms []Metric
	for _, k := range c.Keys {
		ms = append(ms, Metric{k.Name() + " p50", "ms", false})
	}
	return append(ms, Metric{"server CPU/request", "µs", false})
}

func (c Compare) routed(r transport.ConnectTo) Measurement {
	c.Target.Probe.Routes = withRoute(c.Target.Probe.Routes, r)
	return c
}

// Run implements Measurement: compare's rounds, each row's median total
// time. A row compare dropped (its requests failed: no resumption where
// the server variant has no tickets) has no value in this sample; a
// baseline row that cannot be measured fails the run. Requests counts
// the failed requests too: the server answered each of them.
func (c Compare) Run(ctx context.Context, _ []int) (Sample, error) {
	cfg := c.Config
	cfg.Warmup = -1
	res, err := c.run(ctx, cfg)
	if ctx.Err() != nil {
		return Sample{}, context.Canceled
	}
	if err != nil {
		return Sample{}, err
	}
	s := Sample{Values: map[string]float64{}}
	top := 0
	for _, v := range res.Variants {
		if v.Total.N > 0 {
			s.Values[v.Name+" p50"] = v.Total.Median
		}
		s.Requests += int64(len(v.Samples))
		for msg, n := range v.Errors {
			s.Requests, s.Errors = s.Requests+int64(n), s.Errors+int64(n)
			if e := v.Name + ": " + msg; n > top || n == top && e < s.Error {
				s.Error, top = e, n
			}
		}
	}
	return s, nil
}

func (c Compare) run(ctx context.Context, cfg compare.Config) (*compare.Result, error) {
	variants, closeAll, err := c.Target.Variants(c.Keys)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	cfg.Variants, cfg.Progress = variants, nil
	return compare.Run(ctx, cfg)
}

// WarmUp implements Measurement: one round of every row.
func (c Compare) WarmUp(ctx context.Context) error {
	cfg := c.Config
	cfg.Runs, cfg.Warmup, cfg.Precision = 1, -1, 0
	if _, err := c.run(ctx, cfg); err != nil {
		if ctx.Err() != nil {
			return context.Canceled
		}
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}
