package experiment

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// Metric is a quantity each measurement gives.
type Metric struct {
	Name           string `json:"name"`
	Unit           string `json:"unit"`
	HigherIsBetter bool   `json:"higher_is_better"`
}

// Sample is one measurement of one variant in one block: a value per
// metric that was measured (a metric with no value, as server CPU where
// it could not be read, is absent) and the requests it made.
type Sample struct {
	Values   map[string]float64 `json:"values"`
	Requests int64              `json:"requests"`
	Errors   int64              `json:"errors"`
	// Error is the most frequent request error, if any failed.
	Error string `json:"error,omitempty"`
	// Noise is what else the machine did meanwhile; nil where it could
	// not be read.
	Noise *Noise `json:"noise"`
}

// Measurement runs against a live variant: the command line after "--".
type Measurement interface {
	// Metrics lists what Run measures, in report order.
	Metrics() []Metric
	// Run measures once; serverPIDs are the server's processes. The
	// server's CPU time per request is added by the runner, from the
	// processes' own accounting around Run.
	Run(ctx context.Context, serverPIDs []int) (Sample, error)
	// WarmUp runs a short version of the measurement whose result is
	// thrown away: caches, connection pools and the CPU's clock settle.
	WarmUp(ctx context.Context) error
	// routed returns the measurement with its connections routed by c
	// first (to a server behind the emulated link).
	routed(c transport.ConnectTo) Measurement
}

// Bench measures with bench's load generator, the code behind
// 'httpslab bench', configured as that command line configured it.
type Bench struct{ Config load.Config }

// Metrics of a bench measurement.
var benchMetrics = []Metric{
	{"requests/s", "/s", true},
	{"latency p50", "ms", false},
	{"latency p99", "ms", false},
	{"handshake p50", "ms", false},
	{"bytes/request", "B", false},
	{"server CPU/request", "µs", false},
}

// resumedMetric is the share of a run's TLS handshakes that resumed a
// session, measured where bench resumes (--conn resume): whether a
// variant lets the client resume at all, and how often, in every block.
var resumedMetric = Metric{"resumed handshakes", "%", true}

// Metrics implements Measurement: bench's, with the share of resumed
// handshakes after the handshake time where the connections resume.
func (b Bench) Metrics() []Metric {
	if b.Config.Mode != transport.Resumed {
		return benchMetrics
	}
	i := slices.IndexFunc(benchMetrics, func(m Metric) bool { return m.Name == "handshake p50" }) + 1
	return slices.Insert(slices.Clone(benchMetrics), i, resumedMetric)
}

func (b Bench) routed(c transport.ConnectTo) Measurement {
	b.Config.Routes = withRoute(b.Config.Routes, c)
	return b
}

// Run implements Measurement.
func (b Bench) Run(ctx context.Context, _ []int) (Sample, error) {
	res, err := load.Run(ctx, b.Config)
	if err != nil {
		return Sample{}, err
	}
	if res.Interrupted {
		return Sample{}, context.Canceled
	}
	s := benchSample(res)
	if b.Config.Mode == transport.Resumed && res.Handshakes > 0 && len(s.Values) > 0 {
		s.Values[resumedMetric.Name] = 100 * float64(res.Resumed) / float64(res.Handshakes)
	}
	return s, nil
}

// benchSample turns a bench result into a sample; latencies are kept in
// microseconds by bench and reported in milliseconds here.
func benchSample(res *load.Result) Sample {
	s := Sample{Values: map[string]float64{}, Requests: res.Requests, Errors: res.Errors}
	for msg, n := range res.ErrorCounts {
		if s.Error == "" || n > res.ErrorCounts[s.Error] || n == res.ErrorCounts[s.Error] && msg < s.Error {
			s.Error = msg
		}
	}
	if res.Requests == 0 {
		return s
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	s.Values["requests/s"] = res.RequestRate()
	s.Values["latency p50"] = ms(res.Latency.Total.ValueAtQuantile(50))
	s.Values["latency p99"] = ms(res.Latency.Total.ValueAtQuantile(99))
	if res.Handshakes > 0 {
		s.Values["handshake p50"] = ms(res.Latency.TLS.ValueAtQuantile(50))
	}
	s.Values["bytes/request"] = float64(res.Bytes) / float64(res.Requests)
	return s
}

// WarmUp implements Measurement: a fifth of the run, at most a second
// (or a tenth of its requests, at most 1000).
func (b Bench) WarmUp(ctx context.Context) error {
	cfg := b.Config
	cfg.ServerPIDs, cfg.Progress = nil, nil
	if cfg.Requests > 0 {
		cfg.Requests = min(max(cfg.Requests/10, 1), 1000)
	} else {
		cfg.Duration = min(max(cmpDuration(cfg.Duration, 10*time.Second)/5, 100*time.Millisecond), time.Second)
	}
	res, err := load.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	if res.Interrupted {
		return context.Canceled
	}
	return nil
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
