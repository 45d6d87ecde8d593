package experiment

import (
	"context"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/stats"
)

// Probe measures with probe's client, the code behind 'httpslab probe
// -n N' (with --resume, --reuse or --0rtt as given): N requests, each
// timed phase by phase, summarised by their medians.
type Probe struct {
	Config probe.Config
	Plan   probe.Plan
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

// Run implements Measurement. The server's CPU time is read from its
// processes' own accounting before and after the requests.
func (p Probe) Run(ctx context.Context, serverPIDs []int) (Sample, error) {
	c, err := probe.New(p.Config)
	if err != nil {
		return Sample{}, err
	}
	defer c.Close()
	cpu0, ok0 := serverCPU(serverPIDs)
	results, err := c.Run(ctx, p.Plan)
	cpu1, ok1 := serverCPU(serverPIDs)
	if ctx.Err() != nil {
		return Sample{}, context.Canceled
	}
	s := probeSample(results)
	if s.Error == "" && err != nil {
		s.Error = err.Error()
	}
	if ok0 && ok1 && s.Requests > 0 && len(s.Values) > 0 {
		s.Values["server CPU/request"] = float64(cpu1-cpu0) / float64(time.Microsecond) / float64(s.Requests)
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

// serverCPU sums the user and system time of the server's processes and
// their children (nginx's workers under its master).
func serverCPU(pids []int) (time.Duration, bool) {
	var sum time.Duration
	for _, pid := range pids {
		for _, p := range append([]int{pid}, machine.Children(pid)...) {
			u, s, err := machine.ProcessTimes(p)
			if err != nil {
				return 0, false
			}
			sum += u + s
		}
	}
	return sum, len(pids) > 0
}

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
