package report

// Comparisons in the HTML report: compare's variants and page's
// protocols as medians with their confidence intervals, and the
// differences against the baseline with their intervals; a difference
// that is not significant is drawn grey and marked "~", as in the text
// report. Several page results are also drawn together, one colour
// each. experiment's verdicts are drawn the same way, one chart per
// metric.

import (
	"fmt"
	"math"
	"slices"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/page"
)

// interval is one lane of an interval chart: a point with its interval.
type interval struct {
	Name       string
	V, Lo, Hi  float64 // Lo and Hi NaN when there is no interval
	Class, Tip string
}

// intervalChart draws one dot and whisker per lane on a common axis;
// zeroLine marks 0 (for differences).
func intervalChart(title, unit, comment string, lanes []interval, zeroLine bool) chart {
	lo, hi := 0.0, 0.0
	for _, l := range lanes {
		for _, v := range []float64{l.V, l.Lo, l.Hi} {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if !zeroLine {
		lo = 0
	}
	pad := (hi - lo) * 0.05
	if pad == 0 {
		pad = 1
	}
	h := plotTop + float64(len(lanes))*laneHeight + axisHeight
	c := chart{Title: title, Width: chartWidth, Height: h, Comment: comment}
	xs := scale{lo: lo - pad*btof(lo < 0), hi: hi + pad, from: plotLeft, to: plotRight}
	ticks := spanTicks(xs.lo, xs.hi, 6)
	c.xAxis(xs, ticks, h-axisHeight, plotTop, unit, tick)
	if zeroLine {
		c.Lines = append(c.Lines, line{X1: xs.at(0), Y1: plotTop, X2: xs.at(0), Y2: h - axisHeight, Class: "zero"})
	}
	for i, l := range lanes {
		y := plotTop + float64(i)*laneHeight + laneHeight/2
		c.Labels = append(c.Labels, svgText{X: plotLeft - 6, Y: y + 4, Anchor: "end", Class: "lane", Text: clip(l.Name, 30)})
		if !math.IsNaN(l.Lo) {
			c.Lines = append(c.Lines, line{X1: xs.at(l.Lo), Y1: y, X2: xs.at(l.Hi), Y2: y, Class: l.Class + " whisker"})
		}
		if !math.IsNaN(l.V) {
			c.Rects = append(c.Rects, rect{X: xs.at(l.V) - 4, Y: y - 4, W: 8, H: 8, Class: l.Class, Tip: l.Tip})
		}
	}
	return c
}

func btof(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// summaryLane is a median with its interval, NaN bounds without one.
func summaryLane(name string, s compare.Summary, cls string) interval {
	l := interval{Name: name, V: s.Median, Lo: math.NaN(), Hi: math.NaN(), Class: cls}
	if s.N == 0 {
		l.V = math.NaN()
	}
	if s.CILevel > 0 {
		l.Lo, l.Hi = s.Lo, s.Hi
	}
	l.Tip = fmt.Sprintf("%s: median %s ms%s, n=%d", name, fmtMS(s.Median), ciText(l.Lo, l.Hi, s.CILevel), s.N)
	return l
}

// diffLane is a difference with its interval, grey and "~" when it is
// not significant.
func diffLane(name string, d compare.Diff) interval {
	l := interval{Name: name, V: d.MS, Lo: math.NaN(), Hi: math.NaN(), Class: "nosig"}
	if d.Significant {
		l.Class = "sig"
	}
	if d.CILevel > 0 {
		l.Lo, l.Hi = d.Lo, d.Hi
	}
	l.Tip = fmt.Sprintf("%s: %s ms%s, p %s", name, diffText(d), ciText(l.Lo, l.Hi, d.CILevel), pValue(d.P))
	return l
}

// diffText is a difference, or "~" and its value when not significant.
func diffText(d compare.Diff) string {
	s := "+" + fmtMS(d.MS)
	if d.MS < 0 {
		s = "-" + fmtMS(-d.MS)
	}
	if !d.Significant {
		return "~ " + s
	}
	return s
}

func ciText(lo, hi, level float64) string {
	if math.IsNaN(lo) {
		return " (n too small for an interval)"
	}
	return fmt.Sprintf(" [%s, %s] at %.0f%%", fmtMS(lo), fmtMS(hi), level*100)
}

// compareSection draws a comparison: medians, then differences.
func compareSection(res *compare.Result, findings []string) section {
	s := section{Notes: findings}
	if res == nil {
		return s
	}
	s.Meta = append(s.Meta, fmt.Sprintf("%d rounds, interleaved, stopped: %s; \"~\" = not significant at alpha %g", res.Rounds, res.Stop, res.Alpha))
	var meds, diffs []interval
	mt := table{Caption: "medians, ms", Head: []string{"variant", "n", "median", "CI low", "CI high"}}
	dt := table{Caption: "differences against the baseline, ms", Head: []string{"variant", "difference", "CI low", "CI high", "p"}}
	for i, v := range res.Variants {
		meds = append(meds, summaryLane(v.Name, v.Total, seriesClass(0)))
		if v.Total.N == 0 {
			mt.Rows = append(mt.Rows, []string{v.Name, "0", "not measured", "-", "-"})
			continue
		}
		mt.Rows = append(mt.Rows, []string{v.Name, fmt.Sprint(v.Total.N), fmtMS(v.Total.Median), fmtMS(ciBound(v.Total, v.Total.Lo)), fmtMS(ciBound(v.Total, v.Total.Hi))})
		if i > 0 && v.VsBaseline != nil {
			d := *v.VsBaseline
			diffs = append(diffs, diffLane(v.Name, d))
			dt.Rows = append(dt.Rows, []string{v.Name, diffText(d), fmtMS(diffBound(d, d.Lo)), fmtMS(diffBound(d, d.Hi)), pValue(d.P)})
		}
	}
	c := intervalChart("Median total time per variant", "ms", fmt.Sprintf("dot: median; line: its %.0f%% confidence interval", res.Level*100), meds, false)
	c.Table = mt
	s.Charts = append(s.Charts, c)
	if sc, ok := compareScatter(res); ok {
		s.Charts = append(s.Charts, sc)
	}
	if len(diffs) > 0 {
		d := intervalChart("Difference against the baseline ("+res.Variants[0].Name+")", "ms",
			"dot: shift of the total time (Hodges-Lehmann); line: its interval; grey = not significant (~)", diffs, true)
		d.Legend = []legendItem{{Class: "sig", Text: "significant"}, {Class: "nosig", Text: "~ not significant"}}
		d.Table = dt
		s.Charts = append(s.Charts, d)
	}
	return s
}

func ciBound(s compare.Summary, v float64) float64 {
	if s.CILevel == 0 {
		return math.NaN()
	}
	return v
}

func diffBound(d compare.Diff, v float64) float64 {
	if d.CILevel == 0 {
		return math.NaN()
	}
	return v
}

// pageSection draws a page comparison: median load per protocol, the
// differences, and the waterfall of each protocol's median load.
func pageSection(r *page.Result) section {
	s := section{Meta: []string{fmt.Sprintf("%s, %d rounds, stopped: %s", r.URL, r.Rounds, r.Stop)}}
	var meds []interval
	t := table{Caption: "page load time, ms", Head: []string{"protocol", "n", "median", "CI low", "CI high", "requests", "connections"}}
	for _, p := range r.Protocols {
		meds = append(meds, summaryLane(string(p.Protocol), p.LoadTime, seriesClass(0)))
		t.Rows = append(t.Rows, []string{string(p.Protocol), fmt.Sprint(p.LoadTime.N), fmtMS(p.LoadTime.Median),
			fmtMS(ciBound(p.LoadTime, p.LoadTime.Lo)), fmtMS(ciBound(p.LoadTime, p.LoadTime.Hi)), fmt.Sprint(p.Requests), fmt.Sprint(p.Conns)})
	}
	c := intervalChart("Median page load per protocol", "ms", "dot: median load time; line: its confidence interval", meds, false)
	c.Table = t
	s.Charts = append(s.Charts, c)
	if len(r.Differences) > 0 {
		var diffs []interval
		dt := table{Caption: "differences, ms", Head: []string{"difference", "from", "to", "ms", "CI low", "CI high", "p"}}
		for _, d := range r.Differences {
			diffs = append(diffs, diffLane(d.Name, d.Diff))
			dt.Rows = append(dt.Rows, []string{d.Name, string(d.From), string(d.To), diffText(d.Diff),
				fmtMS(diffBound(d.Diff, d.Diff.Lo)), fmtMS(diffBound(d.Diff, d.Diff.Hi)), pValue(d.Diff.P)})
		}
		dc := intervalChart("Differences between protocols", "ms", "grey = not significant (~)", diffs, true)
		dc.Legend = []legendItem{{Class: "sig", Text: "significant"}, {Class: "nosig", Text: "~ not significant"}}
		dc.Table = dt
		s.Charts = append(s.Charts, dc)
	}
	for _, p := range r.Protocols {
		if p.Median == nil {
			continue
		}
		lanes, wt := pageWaterfallLanes(p.Median)
		wc := waterfallChart(fmt.Sprintf("Waterfall of the median %s load (%s ms)", p.Protocol, msOf(p.Median.Duration)), lanes)
		wc.Table = wt
		s.Charts = append(s.Charts, wc)
	}
	return s
}

// pageOverlay draws the median page load of several page results on one
// chart: grouped by protocol, one colour per result, named by its label;
// a protocol only some results measured has lanes for those alone.
func pageOverlay(in []HTMLInput) section {
	s := section{Title: "page: " + fmt.Sprint(len(in)) + " results overlaid"}
	var protos []page.Protocol
	for _, d := range in {
		for _, p := range d.Doc.Result.(*page.Result).Protocols {
			if !slices.Contains(protos, p.Protocol) {
				protos = append(protos, p.Protocol)
			}
		}
	}
	var lanes []interval
	var groups []int // the index of each protocol's first lane after the first
	t := table{Caption: "page load time by result, ms", Head: []string{"file", "protocol", "n", "median", "CI low", "CI high"}}
	for gi, proto := range protos {
		if gi > 0 {
			groups = append(groups, len(lanes))
		}
		for i, d := range in {
			for _, p := range d.Doc.Result.(*page.Result).Protocols {
				if p.Protocol != proto {
					continue
				}
				lanes = append(lanes, summaryLane(string(p.Protocol)+" "+d.Label, p.LoadTime, seriesClass(i)))
				t.Rows = append(t.Rows, []string{d.Label, string(p.Protocol), fmt.Sprint(p.LoadTime.N), fmtMS(p.LoadTime.Median),
					fmtMS(ciBound(p.LoadTime, p.LoadTime.Lo)), fmtMS(ciBound(p.LoadTime, p.LoadTime.Hi))})
			}
		}
	}
	if len(lanes) == 0 {
		s.Notes = append(s.Notes, "no result measured a protocol, so there is nothing to overlay")
		return s
	}
	c := intervalChart("Median page load per protocol and result", "ms",
		"dot: median load time; line: its confidence interval; grouped by protocol, one colour per result", lanes, false)
	for _, g := range groups {
		y := plotTop + float64(g)*laneHeight
		c.Lines = append(c.Lines, line{X1: 10, Y1: y, X2: plotRight, Y2: y, Class: "grid"})
	}
	for i, d := range in {
		c.Legend = append(c.Legend, legendItem{Class: seriesClass(i), Text: d.Label})
	}
	c.Table = t
	s.Charts = append(s.Charts, c)
	return s
}
