package report

// The latency histogram of the HTML report: the share of requests in
// each of histBins bins of equal width on a log latency axis, summed
// from the HDR histogram's own buckets, so that a run of ten million
// requests draws as many shapes as a run of ten. One series is drawn as
// bars; several (bench files overlaid) as step lines on one axis, each
// as a share of its own requests, so that runs of different length
// compare.

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// histBins is the most bins the histogram has, whatever the run; a run
// of fewer than histBins² requests gets the square root of its count (at
// least 10), so that a short run's bins are not mostly empty.
const histBins = 60

// binsFor is how many bins the series' histogram has.
func binsFor(series []spectrumSeries) int {
	n := int64(0)
	for _, s := range series {
		n = max(n, s.Hist.TotalCount())
	}
	return min(max(int(math.Sqrt(float64(n))), 10), histBins)
}

// histRange is the latency range of the histogram's axis, in ms: from
// the decade below the lowest p0.1 to the highest p99.99 (values beyond
// count in the last bin, as the table says).
func histRange(series []spectrumSeries) (lo, hi float64) {
	lo, hi = math.Inf(1), 0
	for _, s := range series {
		lo = min(lo, float64(max(s.Hist.ValueAtPercentile(0.1), 1))/1000)
		hi = max(hi, float64(s.Hist.ValueAtPercentile(99.99))/1000)
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)))
	if hi <= lo {
		hi = lo * 10
	}
	return lo, hi
}

// histShares sums h's buckets into n bins on the log axis from lo to hi
// ms: each bin's share of the requests, the first and last holding what
// lies below and beyond the axis.
func histShares(h *hdrhistogram.Histogram, lo, hi float64, n int) []float64 {
	shares := make([]float64, n)
	total := float64(h.TotalCount())
	if total == 0 {
		return shares
	}
	llo, lhi := math.Log10(lo), math.Log10(hi)
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		mid := (float64(b.From) + float64(b.To)) / 2 / 1000
		i := int(math.Floor((math.Log10(max(mid, 1e-9)) - llo) / (lhi - llo) * float64(n)))
		shares[min(max(i, 0), n-1)] += float64(b.Count) / total
	}
	return shares
}

// histogramChart draws the series' histograms on one log axis.
func histogramChart(title string, series []spectrumSeries) chart {
	c := chart{Title: title, Width: chartWidth, Height: chartHeight,
		Comment: "share of requests (%) by latency; the latency axis is logarithmic, each bar spans the same ratio of latencies"}
	lo, hi := histRange(series)
	bins := binsFor(series)
	all := make([][]float64, len(series))
	top := 0.0
	for i, s := range series {
		all[i] = histShares(s.Hist, lo, hi, bins)
		for _, v := range all[i] {
			top = max(top, 100*v)
		}
	}
	bottom := chartHeight - axisHeight
	ticksY := niceTicks(top, 5)
	ys := scale{lo: 0, hi: ticksY[len(ticksY)-1], from: bottom, to: plotTop}
	xs := scale{lo: math.Log10(lo), hi: math.Log10(hi), from: plotLeft - 100, to: plotRight}
	c.yAxis(ys, ticksY, xs.from, xs.to, "% of requests", tick)
	c.logXAxis(xs, lo, hi, bottom)
	edge := func(k int) float64 { return xs.at(xs.lo + (xs.hi-xs.lo)*float64(k)/float64(bins)) }
	c.Table = table{Caption: title + ": % of requests per bin", Head: []string{"from ms", "to ms"}}
	for i, s := range series {
		cls := seriesClass(i)
		c.Legend = append(c.Legend, legendItem{Class: cls, Text: s.Name})
		c.Table.Head = append(c.Table.Head, s.Name)
		if len(series) == 1 {
			for k, v := range all[i] {
				if v > 0 {
					x0, x1 := edge(k), edge(k+1)
					c.Rects = append(c.Rects, rect{X: x0, Y: ys.at(100 * v), W: max(x1-x0-1, 1), H: bottom - ys.at(100*v), Class: cls,
						Tip: fmt.Sprintf("%s: %s to %s ms: %.3g%% of requests", s.Name, fmtMS(binEdge(lo, hi, k, bins)), fmtMS(binEdge(lo, hi, k+1, bins)), 100*v)})
				}
			}
			continue
		}
		xy := [][2]float64{{edge(0), bottom}}
		for k, v := range all[i] {
			xy = append(xy, [2]float64{edge(k), ys.at(100 * v)}, [2]float64{edge(k + 1), ys.at(100 * v)})
		}
		xy = append(xy, [2]float64{edge(bins), bottom})
		c.Paths = append(c.Paths, polyline{Points: points(xy), Class: cls, Tip: s.Name})
	}
	for k := range bins {
		row := []string{fmtMS(binEdge(lo, hi, k, bins)), fmtMS(binEdge(lo, hi, k+1, bins))}
		if k == 0 {
			row[0] = "0"
		}
		if k == bins-1 {
			row[1] = "max"
		}
		empty := true
		for i := range series {
			row = append(row, fmt.Sprintf("%.3g", 100*all[i][k]))
			empty = empty && all[i][k] == 0
		}
		if !empty {
			c.Table.Rows = append(c.Table.Rows, row)
		}
	}
	return c
}

// binEdge is the k-th of n bins' edges on the log axis from lo to hi, in ms.
func binEdge(lo, hi float64, k, n int) float64 {
	return lo * math.Pow(hi/lo, float64(k)/float64(n))
}

// logXAxis draws a logarithmic ms axis at y with ticks at 1, 2 and 5
// times the powers of ten within lo to hi.
func (c *chart) logXAxis(xs scale, lo, hi, y float64) {
	c.Lines = append(c.Lines, line{X1: xs.from, Y1: y, X2: xs.to, Y2: y, Class: "axis"})
	for d := math.Floor(math.Log10(lo)); d <= math.Log10(hi); d++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, d)
			if v < lo*0.999 || v > hi*1.001 {
				continue
			}
			x := xs.at(math.Log10(v))
			c.Lines = append(c.Lines, line{X1: x, Y1: plotTop, X2: x, Y2: y, Class: "grid"})
			c.Labels = append(c.Labels, svgText{X: x, Y: y + 14, Anchor: "middle", Class: "tick", Text: tick(v)})
		}
	}
	c.Labels = append(c.Labels, svgText{X: (xs.from + xs.to) / 2, Y: y + 30, Anchor: "middle", Class: "axis-title", Text: "latency ms (log)"})
}
