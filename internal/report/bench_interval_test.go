package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// TestBenchIntervalsJSON: the JSON form keeps each interval's offset,
// wall-clock start, length, partial mark and counts, and its histograms
// decode to what the run recorded.
func TestBenchIntervalsJSON(t *testing.T) {
	r := sampleBench()
	j := NewBenchJSON(r)
	if len(j.Intervals) != 2 {
		t.Fatalf("%d intervals; want 2", len(j.Intervals))
	}
	first, last := j.Intervals[0], j.Intervals[1]
	if first.OffsetSeconds != 0 || first.LengthSeconds != 1 || first.Partial || first.Requests != 100 || !first.Start.Equal(r.Start) {
		t.Errorf("first interval = %+v; want offset 0, length 1, whole, 100 requests, start %v", first, r.Start)
	}
	if last.OffsetSeconds != 1 || last.LengthSeconds != 0.001 || !last.Partial || last.Errors != 1 || last.Requests != 0 {
		t.Errorf("last interval = %+v; want offset 1, length 0.001, partial, 1 error", last)
	}
	h, err := first.Histogram("total")
	if err != nil {
		t.Fatal(err)
	}
	if !h.Equals(r.Latency.Total) {
		t.Errorf("first interval's total decodes to %d values, p99 %d; want the run's %d, p99 %d",
			h.TotalCount(), h.ValueAtQuantile(99), r.Latency.Total.TotalCount(), r.Latency.Total.ValueAtQuantile(99))
	}
	if _, err := first.Histogram("dns"); err == nil {
		t.Error(`Histogram("dns") = nil error; want one: there is no such phase`)
	}
}

// TestBenchIntervalLog writes the intervals as an HdrHistogram interval
// log and reads it back with the library's reader: every interval and
// phase, tagged, at its wall-clock time, with its counts.
func TestBenchIntervalLog(t *testing.T) {
	r := sampleBench()
	r.Start = time.Date(2026, 11, 24, 6, 0, 0, 300e6, time.UTC)
	r.Intervals = sampleIntervals(r)
	j := NewBenchJSON(r)
	var b bytes.Buffer
	if err := j.IntervalLog(&b); err != nil {
		t.Fatal(err)
	}
	lr := hdrhistogram.NewHistogramLogReader(&b)
	var got []*hdrhistogram.Histogram
	for range 20 {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("reading the interval log: %v\n%s", err, b.String())
		}
		if h == nil {
			break
		}
		got = append(got, h)
	}
	phases := []string{"connect", "tls", "waiting", "total", "service"}
	if len(got) != 2*len(phases) {
		t.Fatalf("the log holds %d histograms; want %d", len(got), 2*len(phases))
	}
	for i, h := range got {
		iv := j.Intervals[i/len(phases)]
		want, _ := iv.Histogram(phases[i%len(phases)])
		start := iv.Start.UnixMilli()
		if h.Tag() != phases[i%len(phases)] || h.StartTimeMs() != start || !h.Equals(want) {
			t.Errorf("histogram %d: tag %q, start %d ms, %d values; want %q, %d ms, %d values",
				i, h.Tag(), h.StartTimeMs(), h.TotalCount(), phases[i%len(phases)], start, want.TotalCount())
		}
	}
}
