package report

import (
	"fmt"
	"io"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
)

// benchIntervals is the JSON form of a run's intervals, [] for none.
func benchIntervals(ivs []load.Interval) []BenchInterval {
	out := make([]BenchInterval, 0, len(ivs))
	for _, iv := range ivs {
		l := iv.Latency
		out = append(out, BenchInterval{OffsetSeconds: int64(iv.Offset / time.Second), Start: iv.Start.UTC(),
			LengthSeconds: iv.Length.Seconds(), Partial: iv.Partial, Requests: iv.Requests, Errors: iv.Errors,
			HDR: BenchIntervalHDR{Connect: l.Connect, TLS: l.TLS, Waiting: l.Waiting, Total: l.Total, Service: l.Service}})
	}
	return out
}

// Phases returns the interval's encoded histograms by phase name
// (connect, tls, waiting, total and, in the open model, service).
func (h BenchIntervalHDR) Phases() map[string]string {
	return load.IntervalLatency{Connect: h.Connect, TLS: h.TLS, Waiting: h.Waiting, Total: h.Total, Service: h.Service}.Phases()
}

// Histogram decodes the interval's histogram of a phase (connect, tls,
// waiting, total, service), in microseconds.
func (iv BenchInterval) Histogram(phase string) (*hdrhistogram.Histogram, error) {
	enc, ok := iv.HDR.Phases()[phase]
	if !ok {
		return nil, fmt.Errorf("interval at %d s: no %s histogram", iv.OffsetSeconds, phase)
	}
	h, err := load.DecodeHistogram(enc)
	if err != nil {
		return nil, fmt.Errorf("interval at %d s: decoding its %s histogram: %w", iv.OffsetSeconds, phase, err)
	}
	return h, nil
}

// IntervalLog writes the result's intervals as an HdrHistogram interval
// log (format 1.3), which HdrHistogram's log tools read: one line per
// interval and phase, tagged with the phase's name, timestamps in seconds
// from the run's start (its BaseTime and StartTime lines give the wall
// clock). The values are microseconds; the log's Interval_Max column is,
// as the library writes it, the maximum divided by 1,000,000.
func (r *BenchJSON) IntervalLog(w io.Writer) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	if len(r.Intervals) == 0 {
		return lw.OutputLogFormatVersion()
	}
	start := r.Intervals[0].Start.Add(-time.Duration(r.Intervals[0].OffsetSeconds) * time.Second).UnixMilli()
	// The log's BaseTime line holds whole seconds: timestamps count from
	// the second the run started in, and a reader adds them back exactly.
	base := start / 1000 * 1000
	lw.SetBaseTime(base)
	for _, err := range []error{lw.OutputLogFormatVersion(), lw.OutputStartTime(start), lw.OutputBaseTime(base), lw.OutputLegend()} {
		if err != nil {
			return fmt.Errorf("writing the interval log: %w", err)
		}
	}
	for _, iv := range r.Intervals {
		for _, phase := range []string{"connect", "tls", "waiting", "total", "service"} {
			if phase == "service" && iv.HDR.Service == "" {
				continue
			}
			h, err := iv.Histogram(phase)
			if err != nil {
				return err
			}
			from := iv.Start.UnixMilli()
			h.SetTag(phase)
			h.SetStartTimeMs(from)
			h.SetEndTimeMs(from + int64(iv.LengthSeconds*1000))
			if err := lw.OutputIntervalHistogram(h); err != nil {
				return fmt.Errorf("writing the interval log: %w", err)
			}
		}
	}
	return nil
}
