package experiment

import (
	"context"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/stats"
	"github.com/httpslab/httpslab/internal/transport"
)

// Probe measures with probe's client, the code behind 'httpslab probe
// -n N' (with --resume, --reuse or --0rtt as given): N requests, each
// timed phase by phase, summarised by their medians.
type Probe struct {
	Config probe.Config
	Plan   probe.Plan
}

func (p Probe) routed(c transport.ConnectTo) Measurement {
	p.Config.Routes = withRoute(p.Config.Routes, c)
	return p
}

var probeMetrics = []Metric{
	{"total p50", "ms", false},
	{"connect p50", "ms", false},
	{"tls p50", "ms", false},
	{"wait p50", "ms", false},
	{"wire bytes/request", "B", false},
	{"server CPU/request", "µs", false},
}

// Metrics implements Measurement.
func (p Probe) Metrics() []Metric { return probeMetrics }

// Run implements Measurement.
func (p Probe) Run(ctx context.Context, _ []int) (Sample, error) {
	c, err := probe.New(p.Config)
	if err != nil {
		return Sample{}, err
	}
	defer c.Close()
	results, err := c.Run(ctx, p.Plan)
	if ctx.Err() != nil {
		return Sample{}, context.Canceled
	}
	s := probeSample(results)
	if s.Error == "" && err != nil {
		s.Error = err.Error()
	}
	return s, nil
}

// probeSample takes the medians of the final hops' phases and bytes.
func probeSample(results []*probe.Result) Sample {
	s := Sample{Values: map[string]float64{}}
	phases := map[string][]float64{}
	var total, wire []float64
	for _, r := range results {
		if r.Error != "" || len(r.Hops) == 0 {
			s.Errors++
			if s.Error == "" {
				s.Error = r.Error
			}
			continue
		}
		s.Requests++
		t := r.Hops[len(r.Hops)-1]
		total = append(total, ms(t.Total))
		for _, name := range []string{probe.PhaseConnect, probe.PhaseTLS, probe.PhaseWait} {
			if ph, ok := t.Phase(name); ok {
				phases[name] = append(phases[name], ms(ph.Duration))
			}
		}
		b := t.Bytes
		wire = append(wire, float64(b.HandshakeWritten+b.HandshakeRead+b.RequestWritten+b.ResponseRead))
	}
	if s.Requests == 0 {
		return s
	}
	s.Values["total p50"] = stats.Median(total)
	s.Values["wire bytes/request"] = stats.Median(wire)
	for name, xs := range phases {
		// A phase some requests skipped (a reused connection's TLS) has
		// no median that compares across variants.
		if int64(len(xs)) == s.Requests {
			s.Values[name+" p50"] = stats.Median(xs)
		}
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WarmUp implements Measurement: two requests of the plan.
func (p Probe) WarmUp(ctx context.Context) error {
	c, err := probe.New(p.Config)
	if err != nil {
		return err
	}
	defer c.Close()
	plan := p.Plan
	plan.Runs = min(plan.Runs, 2)
	_, err = c.Run(ctx, plan)
	if ctx.Err() != nil {
		return context.Canceled
	}
	return err
}
