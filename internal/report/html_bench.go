package report

// Bench in the HTML report: the latency percentile spectrum, drawn from
// the HDR histograms in the result (so the drawing is the same for a
// 2-second and a 10-minute run), with p50 to p99.99 on a 1/(1-p) log
// axis where every tail percentile gets as much room as the median.

import (
	"fmt"
	"math"
	"slices"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// spectrumPoints is how many points draw one series of the spectrum.
const spectrumPoints = 80

// spectrumRows are the percentiles of the spectrum's table.
var spectrumRows = []float64{50, 75, 90, 95, 99, 99.9, 99.99}

// spectrumSeries is one latency distribution on the spectrum.
type spectrumSeries struct {
	Name string
	Hist *hdrhistogram.Histogram // microseconds
}

// benchPhases are the histograms a bench result may hold, in the
// spectrum's order; service is the open model's uncorrected latency.
var benchPhases = []string{"total", "service", "waiting", "tls", "connect"}

func benchSection(r *BenchJSON) section {
	s := section{Meta: []string{fmt.Sprintf("%s, %s, %d connections, %d requests in %.1f s (%.0f/s), %d errors",
		joinTargets(r.Target), r.Protocol, r.Conns, r.Requests, r.ElapsedSeconds, r.RequestsPerSec, r.Errors)}}
	var series []spectrumSeries
	for _, ph := range benchPhases {
		bh, ok := r.Latency[ph]
		if !ok || bh.Count == 0 {
			continue
		}
		h, err := decodeHDR(bh.HDR)
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("the %s histogram cannot be read: %v", ph, err))
			continue
		}
		name := ph
		if ph == "service" {
			name = "service (uncorrected)"
		}
		series = append(series, spectrumSeries{Name: name, Hist: h})
	}
	if len(series) > 0 {
		s.Charts = append(s.Charts, spectrumChart("Latency percentile spectrum by phase", series))
		if hs := histSeries(series); len(hs) > 0 {
			s.Charts = append(s.Charts, histogramChart("Latency histogram", hs))
		}
		s.Tables = append(s.Tables, phaseTable(series))
	}
	if t, ok := omissionTable(series); ok {
		s.Tables = append(s.Tables, t)
	}
	if len(r.Thresholds) > 0 {
		s.Tables = append(s.Tables, thresholdTable(r.Thresholds))
	}
	s.Tables = append(s.Tables, benchCounts(r))
	secs, err := benchSeconds(r)
	switch {
	case err != nil:
		s.Notes = append(s.Notes, "over time: "+err.Error())
	case len(secs) < 2 && len(r.Intervals) > 0:
		s.Notes = append(s.Notes, "over time: the run was shorter than two seconds, too short for a line over time")
	case len(secs) == 0:
		s.Notes = append(s.Notes, "over time: this result holds no per-second intervals")
	default:
		s.Charts = append(s.Charts, benchTimeCharts(secs)...)
	}
	return s
}

// histSeries are the series of the histogram: the total latency, and in
// the open model also the uncorrected service time beside it.
func histSeries(series []spectrumSeries) []spectrumSeries {
	var hs []spectrumSeries
	for _, sr := range series {
		if sr.Name == "total" || sr.Name == "service (uncorrected)" {
			hs = append(hs, sr)
		}
	}
	return hs
}

// phaseTable lists each phase's count, mean and percentiles: where a
// request's time went (TCP connect and TLS only on new connections).
func phaseTable(series []spectrumSeries) table {
	t := table{Caption: "latency by phase, ms", Head: []string{"phase", "count", "mean", "p50", "p90", "p99", "p99.9", "max"}}
	for _, sr := range series {
		h := sr.Hist
		row := []string{sr.Name, fmt.Sprint(h.TotalCount()), fmtMS(h.Mean() / 1000)}
		for _, p := range []float64{50, 90, 99, 99.9} {
			row = append(row, fmtMS(float64(h.ValueAtPercentile(p))/1000))
		}
		t.Rows = append(t.Rows, append(row, fmtMS(float64(h.Max())/1000)))
	}
	return t
}

// omissionTable puts the open model's latency with the coordinated-
// omission correction (from the intended send) beside the latency
// without it (from the actual send), percentile by percentile.
func omissionTable(series []spectrumSeries) (table, bool) {
	var total, service *hdrhistogram.Histogram
	for _, sr := range series {
		switch sr.Name {
		case "total":
			total = sr.Hist
		case "service (uncorrected)":
			service = sr.Hist
		}
	}
	if total == nil || service == nil {
		return table{}, false
	}
	t := table{Caption: "open model: latency with and without the coordinated-omission correction, ms",
		Head: []string{"percentile", "corrected (from the intended send)", "uncorrected (from the actual send)", "difference"}}
	for _, p := range spectrumRows {
		c, u := float64(total.ValueAtPercentile(p))/1000, float64(service.ValueAtPercentile(p))/1000
		t.Rows = append(t.Rows, []string{fmt.Sprintf("p%g", p), fmtMS(c), fmtMS(u), fmtMS(c - u)})
	}
	return t, true
}

// thresholdTable says whether each --fail-if condition held.
func thresholdTable(ths []BenchThreshold) table {
	t := table{Caption: "--fail-if thresholds", Head: []string{"condition", "measured", "result"}}
	for _, th := range ths {
		res := "passed"
		if th.Tripped {
			res = "FAILED (exit code 3)"
		}
		t.Rows = append(t.Rows, []string{th.Condition, th.Measured, res})
	}
	return t
}

// benchOverlay draws the total latency of several bench results on one
// spectrum, named by their labels.
func benchOverlay(in []HTMLInput) section {
	s := section{Title: "bench: " + fmt.Sprint(len(in)) + " results overlaid"}
	var series []spectrumSeries
	var labels []string
	var runs [][]second
	for _, d := range in {
		r := d.Doc.Result.(*BenchJSON)
		if secs, err := benchSeconds(r); err == nil && len(secs) > 1 {
			labels, runs = append(labels, d.Label), append(runs, secs)
		}
		h, err := decodeHDR(r.Latency["total"].HDR)
		if err != nil || h.TotalCount() == 0 {
			s.Notes = append(s.Notes, d.Label+": no total latency to draw")
			continue
		}
		series = append(series, spectrumSeries{Name: d.Label, Hist: h})
	}
	if len(series) > 0 {
		s.Charts = append(s.Charts, spectrumChart("Total latency percentile spectrum", series), histogramChart("Total latency histogram", series))
	}
	if len(runs) > 0 {
		s.Charts = append(s.Charts, overlayTimeCharts(labels, runs)...)
	}
	return s
}

func decodeHDR(enc string) (*hdrhistogram.Histogram, error) {
	if enc == "" {
		return nil, fmt.Errorf("no hdr encoding")
	}
	return hdrhistogram.Decode([]byte(enc))
}

// pToX places percentile p (50 to 99.99) on the log axis: log10 1/(1-p).
func pToX(p float64) float64 { return math.Log10(100 / (100 - p)) }

// spectrumChart draws each series' latency against its percentile.
func spectrumChart(title string, series []spectrumSeries) chart {
	c := chart{Title: title, Width: chartWidth, Height: chartHeight,
		Comment: "latency (ms) at each percentile; the horizontal axis is 1/(1-p) on a log scale, so p99.9 sits as far from p99 as p99 from p90"}
	maxMS := 0.0
	for _, sr := range series {
		maxMS = max(maxMS, float64(sr.Hist.ValueAtPercentile(99.99))/1000)
	}
	bottom := chartHeight - axisHeight
	ticksY := niceTicks(maxMS, 5)
	ys := scale{lo: 0, hi: ticksY[len(ticksY)-1], from: bottom, to: plotTop}
	xs := scale{lo: pToX(50), hi: pToX(99.99), from: plotLeft - 100, to: plotRight}
	c.yAxis(ys, ticksY, xs.from, xs.to, "latency ms", tick)
	c.Lines = append(c.Lines, line{X1: xs.from, Y1: bottom, X2: xs.to, Y2: bottom, Class: "axis"})
	for _, p := range []float64{50, 90, 99, 99.9, 99.99} {
		x := xs.at(pToX(p))
		c.Lines = append(c.Lines, line{X1: x, Y1: plotTop, X2: x, Y2: bottom, Class: "grid"})
		c.Labels = append(c.Labels, svgText{X: x, Y: bottom + 14, Anchor: "middle", Class: "tick", Text: fmt.Sprintf("p%g", p)})
	}
	c.Labels = append(c.Labels, svgText{X: (xs.from + xs.to) / 2, Y: bottom + 30, Anchor: "middle", Class: "axis-title", Text: "percentile"})
	c.Table = table{Caption: title + ", ms", Head: []string{"percentile"}}
	for i, sr := range series {
		var xy [][2]float64
		for k := range spectrumPoints + 1 {
			x := xs.lo + (xs.hi-xs.lo)*float64(k)/spectrumPoints
			p := 100 - 100/math.Pow(10, x)
			xy = append(xy, [2]float64{xs.at(x), ys.at(float64(sr.Hist.ValueAtPercentile(p)) / 1000)})
		}
		cls := seriesClass(i)
		c.Paths = append(c.Paths, polyline{Points: points(xy), Class: cls, Tip: sr.Name})
		c.Legend = append(c.Legend, legendItem{Class: cls, Text: sr.Name})
		c.Table.Head = append(c.Table.Head, sr.Name)
	}
	for _, p := range spectrumRows {
		row := []string{fmt.Sprintf("p%g", p)}
		for _, sr := range series {
			row = append(row, fmtMS(float64(sr.Hist.ValueAtPercentile(p))/1000))
		}
		c.Table.Rows = append(c.Table.Rows, row)
	}
	return c
}

// benchCounts is the table of a run's counts.
func benchCounts(r *BenchJSON) table {
	t := table{Caption: "counts", Head: []string{"", "value"}}
	add := func(k string, v any) { t.Rows = append(t.Rows, []string{k, fmt.Sprint(v)}) }
	add("requests", r.Requests)
	add("errors", r.Errors)
	add("requests/s", fmt.Sprintf("%.1f", r.RequestsPerSec))
	add("connections opened", r.Connections)
	add("handshakes (resumed)", fmt.Sprintf("%d (%d)", r.Handshakes, r.Resumed))
	add("connection mode", r.Mode)
	codes := make([]string, 0, len(r.Status))
	for c := range r.Status {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		add("status "+c, r.Status[c])
	}
	msgs := make([]string, 0, len(r.ErrorMessages))
	for m := range r.ErrorMessages {
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	for _, m := range msgs {
		add("error: "+m, r.ErrorMessages[m])
	}
	return t
}

func joinTargets(t []string) string {
	if len(t) == 1 {
		return t[0]
	}
	return fmt.Sprintf("%d targets", len(t))
}
