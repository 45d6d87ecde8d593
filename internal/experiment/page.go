package experiment

import (
	"context"
	"fmt"

	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/stats"
	"github.com/httpslab/httpslab/internal/transport"
)

// Page measures with page's loader, the code behind 'httpslab page URL'
// over one protocol: Loads loads of the page, each cold unless Warm.
type Page struct {
	Config page.Config
	// Loads is the number of loads per run; 0 means page.DefaultRounds.
	Loads int
	// Warm lets each load resume the TLS sessions of the one before.
	Warm bool
}

var pageMetrics = []Metric{
	{"load p50", "ms", false},
	{"ttfb p50", "ms", false},
	{"wire bytes/load", "B", false},
	{"connections/load", "conn", false},
	{"server CPU/request", "µs", false},
}

// Metrics implements Measurement.
func (p Page) Metrics() []Metric { return pageMetrics }

func (p Page) routed(c transport.ConnectTo) Measurement {
	d := transport.Dialer{}
	if p.Config.Dialer != nil {
		d = *p.Config.Dialer
	}
	d.Routes = withRoute(d.Routes, c)
	p.Config.Dialer = &d
	return p
}

// Run implements Measurement: the medians of the loads that completed;
// a load that failed (or had a failed resource) is counted as an error.
func (p Page) Run(ctx context.Context, _ []int) (Sample, error) {
	cfg := p.Config
	if p.Warm {
		cfg.Sessions = transport.NewSessionCache(0)
	}
	s := Sample{Values: map[string]float64{}}
	var load, ttfb, wire, conns []float64
	for range cmpInt(p.Loads, page.DefaultRounds) {
		ld, err := page.Run(ctx, cfg)
		if ctx.Err() != nil {
			return Sample{}, context.Canceled
		}
		if err == nil && ld.Failed > 0 {
			err = fmt.Errorf("%d of %d requests of the page failed", ld.Failed, len(ld.Requests))
		}
		if err != nil {
			s.Errors++
			s.Error = err.Error()
			continue
		}
		s.Requests += int64(len(ld.Requests))
		hs, app := ld.Handshake, ld.Payload
		load, ttfb = append(load, ms(ld.Duration)), append(ttfb, ms(ld.TTFB))
		wire = append(wire, float64(hs.Read+hs.Written+app.Read+app.Written))
		conns = append(conns, float64(len(ld.Conns)))
	}
	if len(load) > 0 {
		s.Values["load p50"], s.Values["ttfb p50"] = stats.Median(load), stats.Median(ttfb)
		s.Values["wire bytes/load"], s.Values["connections/load"] = stats.Median(wire), stats.Median(conns)
	}
	return s, nil
}

// WarmUp implements Measurement: one load.
func (p Page) WarmUp(ctx context.Context) error {
	if _, err := page.Run(ctx, p.Config); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}
