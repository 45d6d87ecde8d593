package report

// Charts over time in the HTML report: requests/s, errors/s and the p50
// and p99 of the total latency, one value per second of a bench run from
// its intervals (each second's own HDR histograms), downsampled with
// largest-triangle-three-buckets to at most timePoints points per line,
// so that a 10-minute run draws as many points as a 3-minute one and
// keeps its spikes (the largest triangles are the extremes). Several
// bench results are overlaid on one time axis from their starts.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// timePoints is the most points one line over time has.
const timePoints = 200

// second is one interval of a run, its values per second.
type second struct {
	T             float64 // seconds from the run's start to the interval's end
	RPS, EPS      float64 // requests and errors per second
	P50, P99      float64 // ms; NaN for a second without a request
	Requests, Err int64
}

// benchSeconds reads a run's intervals. A last, partial interval of
// under half a second is left out: its few requests over a sliver of a
// second would draw a rate and percentiles the run never had.
func benchSeconds(r *BenchJSON) ([]second, error) {
	var out []second
	for _, iv := range r.Intervals {
		if iv.LengthSeconds <= 0 || iv.Partial && iv.LengthSeconds < 0.5 {
			continue
		}
		s := second{T: float64(iv.OffsetSeconds) + iv.LengthSeconds, RPS: float64(iv.Requests) / iv.LengthSeconds,
			EPS: float64(iv.Errors) / iv.LengthSeconds, P50: math.NaN(), P99: math.NaN(), Requests: iv.Requests, Err: iv.Errors}
		h, err := iv.Histogram("total")
		if err != nil {
			return nil, err
		}
		if h.TotalCount() > 0 {
			s.P50, s.P99 = float64(h.ValueAtPercentile(50))/1000, float64(h.ValueAtPercentile(99))/1000
		}
		out = append(out, s)
	}
	return out, nil
}

// timeSeries is one line over time.
type timeSeries struct {
	Name, Class string
	XY          [][2]float64 // seconds, value; no NaN
}

// pick returns the series of one value of the seconds, without the
// seconds that have none.
func pick(secs []second, f func(second) float64) [][2]float64 {
	var xy [][2]float64
	for _, s := range secs {
		if v := f(s); !math.IsNaN(v) {
			xy = append(xy, [2]float64{s.T, v})
		}
	}
	return xy
}

// lttb keeps n of the points by largest-triangle-three-buckets (Steinarsson,
// 2013): the first and the last, and from each of n-2 buckets between
// them the point that makes the largest triangle with the point kept
// before it and the mean of the next bucket.
func lttb(pts [][2]float64, n int) [][2]float64 {
	if n >= len(pts) || n < 3 {
		return pts
	}
	out := make([][2]float64, 0, n)
	out = append(out, pts[0])
	every := float64(len(pts)-2) / float64(n-2)
	a := 0
	for i := range n - 2 {
		lo, hi := int(float64(i)*every)+1, int(float64(i+1)*every)+1
		from, to := hi, min(int(float64(i+2)*every)+1, len(pts))
		ax, ay := pts[len(pts)-1][0], pts[len(pts)-1][1]
		if from < to {
			ax, ay = 0, 0
			for _, p := range pts[from:to] {
				ax, ay = ax+p[0], ay+p[1]
			}
			ax, ay = ax/float64(to-from), ay/float64(to-from)
		}
		best, bestArea := lo, -1.0
		for j := lo; j < hi; j++ {
			area := math.Abs((pts[a][0]-ax)*(pts[j][1]-pts[a][1]) - (pts[a][0]-pts[j][0])*(ay-pts[a][1]))
			if area > bestArea {
				best, bestArea = j, area
			}
		}
		out = append(out, pts[best])
		a = best
	}
	return append(out, pts[len(pts)-1])
}

// timeChart draws the series on one time axis, each downsampled to
// timePoints; its table holds the seconds any line kept, with every
// series' value in that second.
func timeChart(title, unit, comment string, series []timeSeries) chart {
	c := chart{Title: title, Width: chartWidth, Height: chartHeight, Comment: comment}
	maxT, maxV := 1.0, 0.0
	for _, s := range series {
		for _, p := range s.XY {
			maxT, maxV = max(maxT, p[0]), max(maxV, p[1])
		}
	}
	bottom := chartHeight - axisHeight
	ticksX, ticksY := niceTicks(maxT, 8), niceTicks(maxV, 5)
	xs := scale{lo: 0, hi: ticksX[len(ticksX)-1], from: plotLeft - 100, to: plotRight}
	ys := scale{lo: 0, hi: ticksY[len(ticksY)-1], from: bottom, to: plotTop}
	c.yAxis(ys, ticksY, xs.from, xs.to, unit, tick)
	c.xAxis(xs, ticksX, bottom, plotTop, "seconds from the start", tick)
	kept := map[float64]bool{}
	for _, s := range series {
		ds := lttb(s.XY, timePoints)
		xy := make([][2]float64, len(ds))
		for i, p := range ds {
			xy[i] = [2]float64{xs.at(p[0]), ys.at(p[1])}
			kept[p[0]] = true
		}
		c.Paths = append(c.Paths, polyline{Points: points(xy), Class: s.Class, Tip: s.Name})
		c.Legend = append(c.Legend, legendItem{Class: s.Class, Text: s.Name})
	}
	c.Table = timeTable(title+", "+unit, series, kept)
	return c
}

// timeTable lists, for each second a line kept, every series' value in it.
func timeTable(caption string, series []timeSeries, kept map[float64]bool) table {
	t := table{Caption: caption, Head: []string{"second"}}
	vals := make([]map[float64]float64, len(series))
	for i, s := range series {
		t.Head = append(t.Head, s.Name)
		vals[i] = map[float64]float64{}
		for _, p := range s.XY {
			vals[i][p[0]] = p[1]
		}
	}
	secs := make([]float64, 0, len(kept))
	for x := range kept {
		secs = append(secs, x)
	}
	slices.Sort(secs)
	for _, x := range secs {
		row := []string{strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)}
		for i := range series {
			if v, ok := vals[i][x]; ok {
				row = append(row, fmtMS(v))
			} else {
				row = append(row, "-")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// benchTimeCharts draws one run's requests/s and errors/s, and its p50
// and p99, over time.
func benchTimeCharts(secs []second) []chart {
	rate := []timeSeries{{Name: "requests/s", Class: seriesClass(0), XY: pick(secs, func(s second) float64 { return s.RPS })}}
	errs := "no second counted an error, so there is no line of errors"
	if slices.ContainsFunc(secs, func(s second) bool { return s.Err > 0 }) {
		rate = append(rate, timeSeries{Name: "errors/s", Class: seriesClass(5), XY: pick(secs, func(s second) float64 { return s.EPS })})
		errs = "errors/s in vermilion"
	}
	lat := []timeSeries{{Name: "p50", Class: seriesClass(0), XY: pick(secs, func(s second) float64 { return s.P50 })},
		{Name: "p99", Class: seriesClass(1) + " dash", XY: pick(secs, func(s second) float64 { return s.P99 })}}
	return []chart{
		timeChart("Requests/s and errors/s over time", "per second", fmt.Sprintf("each second of the run (%s); lines of more than %d seconds keep the %d points that shape them most (largest-triangle-three-buckets)", errs, timePoints, timePoints), rate),
		timeChart("Latency over time (p50, p99)", "latency ms", "each second's own p50 and p99 of the total latency, from its HDR histogram", lat),
	}
}

// overlayTimeCharts draws several runs' requests/s and their p50 and p99
// over time, one colour per run.
func overlayTimeCharts(labels []string, runs [][]second) []chart {
	var rate, lat []timeSeries
	for i, secs := range runs {
		cls := seriesClass(i)
		rate = append(rate, timeSeries{Name: labels[i], Class: cls, XY: pick(secs, func(s second) float64 { return s.RPS })})
		lat = append(lat, timeSeries{Name: labels[i] + " p50", Class: cls, XY: pick(secs, func(s second) float64 { return s.P50 })},
			timeSeries{Name: labels[i] + " p99", Class: cls + " dash", XY: pick(secs, func(s second) float64 { return s.P99 })})
	}
	charts := []chart{timeChart("Requests/s over time", "per second", "each run from its own start, one colour per run", rate)}
	if slices.ContainsFunc(runs, func(secs []second) bool { return slices.ContainsFunc(secs, func(s second) bool { return s.Err > 0 }) }) {
		var errs []timeSeries
		for i, secs := range runs {
			errs = append(errs, timeSeries{Name: labels[i], Class: seriesClass(i), XY: pick(secs, func(s second) float64 { return s.EPS })})
		}
		charts = append(charts, timeChart("Errors/s over time", "per second", "each run from its own start, one colour per run", errs))
	}
	return append(charts, timeChart("Total latency over time (p50 solid, p99 dashed)", "latency ms", "each second's own p50 and p99, one colour per run", lat))
}
