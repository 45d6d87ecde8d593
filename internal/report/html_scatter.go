package report

// The per-round scatter of the HTML report: every measured value of
// every variant at the round (compare) or block (experiment) it was
// taken in, with each variant's median as a dashed line. Beside the
// medians and their intervals it shows what they summarise: how far the
// rounds spread, an outlier round, a drift over the run that the
// interleaving spread over every variant alike.

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/httpslab/httpslab/internal/compare"
)

// scatterSeries is one variant's values by round.
type scatterSeries struct {
	Name   string
	Rounds []int
	Values []float64
}

// scatterChart draws the series' values against their rounds.
func scatterChart(title, unit, roundName string, series []scatterSeries) chart {
	c := chart{Title: title, Width: chartWidth, Height: chartHeight,
		Comment: fmt.Sprintf("one dot per %s and variant; dashed: the variant's median. The spread of the dots is the noise the intervals account for", roundName)}
	lastRound, top, bottomV := 1, 0.0, math.Inf(1)
	for _, s := range series {
		for i, r := range s.Rounds {
			lastRound = max(lastRound, r)
			top, bottomV = max(top, s.Values[i]), min(bottomV, s.Values[i])
		}
	}
	bottom := chartHeight - axisHeight
	lo := 0.0
	if bottomV > top/2 { // values far from 0: start the axis near them
		step := niceTicks(top-bottomV, 5)[1]
		lo = math.Floor(bottomV/step) * step
	}
	ticksY := niceTicks(top-lo, 5)
	for i := range ticksY {
		ticksY[i] += lo
	}
	ys := scale{lo: lo, hi: ticksY[len(ticksY)-1], from: bottom, to: plotTop}
	xs := scale{lo: 0.5, hi: float64(lastRound) + 0.5, from: plotLeft - 100, to: plotRight}
	c.yAxis(ys, ticksY, xs.from, xs.to, unit, tick)
	var ticksX []float64
	step := niceTicks(float64(lastRound), 8)[1]
	for v := max(step, 1); v <= float64(lastRound); v += max(step, 1) {
		ticksX = append(ticksX, v)
	}
	c.Lines = append(c.Lines, line{X1: xs.from, Y1: bottom, X2: xs.to, Y2: bottom, Class: "axis"})
	for _, v := range ticksX {
		c.Labels = append(c.Labels, svgText{X: xs.at(v), Y: bottom + 14, Anchor: "middle", Class: "tick", Text: tick(v)})
	}
	c.Labels = append(c.Labels, svgText{X: (xs.from + xs.to) / 2, Y: bottom + 30, Anchor: "middle", Class: "axis-title", Text: roundName})
	c.Table = table{Caption: title + ", " + unit, Head: []string{roundName}}
	cells := map[int][]string{}
	for i, s := range series {
		if len(s.Values) == 0 {
			continue // not measured: no dot, no column; the colours stay the variants'
		}
		cls := seriesClass(i)
		c.Legend = append(c.Legend, legendItem{Class: cls, Text: s.Name})
		c.Table.Head = append(c.Table.Head, s.Name)
		for k, r := range s.Rounds {
			// A variant's dots sit a little off the round's centre, so
			// that variants with the same value stay apart.
			dx := (float64(i) - float64(len(series)-1)/2) * min(3, (xs.to-xs.from)/float64(lastRound)/float64(len(series)+1))
			c.Rects = append(c.Rects, rect{X: xs.at(float64(r)) + dx - 2.5, Y: ys.at(s.Values[k]) - 2.5, W: 5, H: 5, Class: cls,
				Tip: fmt.Sprintf("%s, %s %d: %s %s", s.Name, roundName, r, fmtMS(s.Values[k]), unit)})
			if cells[r] == nil {
				cells[r] = make([]string, len(series))
			}
			cells[r][i] = fmtMS(s.Values[k])
		}
		if len(s.Values) > 0 {
			y := ys.at(median(s.Values))
			c.Lines = append(c.Lines, line{X1: xs.from, Y1: y, X2: xs.to, Y2: y, Class: cls + " median"})
		}
	}
	rounds := make([]int, 0, len(cells))
	for r := range cells {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		row := []string{strconv.Itoa(r)}
		for i, v := range cells[r] {
			if len(series[i].Values) == 0 {
				continue
			}
			if v == "" {
				v = "-"
			}
			row = append(row, v)
		}
		c.Table.Rows = append(c.Table.Rows, row)
	}
	return c
}

// median is the middle of xs (the mean of the two middle ones).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// compareScatter is each compare variant's total time by round; a round
// with several samples of a variant (retries) shows each.
func compareScatter(res *compare.Result) (chart, bool) {
	var series []scatterSeries
	for _, v := range res.Variants {
		s := scatterSeries{Name: v.Name}
		for _, sm := range v.Samples {
			s.Rounds = append(s.Rounds, sm.Round)
			s.Values = append(s.Values, float64(sm.Total)/1e6)
		}
		series = append(series, s)
	}
	if res.Rounds < 2 {
		return chart{}, false
	}
	return scatterChart("Total time of every round per variant", "ms", "round", series), true
}

// experimentScatter is each variant's value of metric m by block.
func experimentScatter(r *ExperimentJSON, metric, unit string) (chart, bool) {
	var series []scatterSeries
	n := 0
	for _, v := range r.Variants {
		s := scatterSeries{Name: v.Name}
		for b, sm := range v.Samples {
			if sm == nil {
				continue
			}
			if x, ok := sm.Values[metric]; ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
				s.Rounds = append(s.Rounds, b+1)
				s.Values = append(s.Values, x)
				n++
			}
		}
		series = append(series, s)
	}
	if n == 0 {
		return chart{}, false
	}
	return scatterChart(metric+" of every block per variant", unit, "block", series), true
}
