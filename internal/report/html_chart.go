package report

// The charts of the HTML report, drawn in Go as SVG. A chart is data for
// the template (html.tmpl): shapes with coordinates, classes and tooltips,
// and the table of its numbers, which the template writes beneath it. No
// string from a result ever becomes markup: the template escapes every
// text, title and attribute, and colours come from CSS classes, so that
// light and dark schemes follow the reader's setting.

import (
	"fmt"
	"math"
	"strconv"
)

// Plot area of every chart, in SVG user units.
const (
	chartWidth  = 760.0
	plotLeft    = 190.0 // room for lane names and axis labels
	plotRight   = 740.0
	plotTop     = 20.0
	axisHeight  = 36.0 // below the plot: tick labels and the axis title
	laneHeight  = 22.0
	chartHeight = 300.0 // line charts
)

// chart is one figure: an SVG drawing and the table of its numbers.
type chart struct {
	ID      string // the figure's id, for links: s2c1 is section 2's chart 1
	Title   string
	Width   float64
	Height  float64
	Rects   []rect
	Lines   []line
	Paths   []polyline
	Labels  []svgText
	Legend  []legendItem
	Table   table
	Comment string // a sentence under the title: what to read in it
}

type rect struct {
	X, Y, W, H float64
	Class, Tip string
}

type line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

type polyline struct {
	Points string
	Class  string
	Tip    string
}

type svgText struct {
	X, Y          float64
	Anchor, Class string
	Text          string
}

type legendItem struct {
	Class, Text string
}

// table is the numbers of a chart or a list of facts: a header row and
// rows of cells, all plain text.
type table struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// scale maps a value range onto a pixel range.
type scale struct {
	lo, hi, from, to float64
}

func (s scale) at(v float64) float64 {
	if s.hi == s.lo {
		return s.from
	}
	return s.from + (v-s.lo)/(s.hi-s.lo)*(s.to-s.from)
}

// niceTicks returns about n round tick values from 0 to at least hi.
func niceTicks(hi float64, n int) []float64 {
	if hi <= 0 || math.IsNaN(hi) || math.IsInf(hi, 0) {
		hi = 1
	}
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for v := 0.0; v < hi+step*0.999 && len(ticks) < 2*n+2; v += step {
		ticks = append(ticks, v)
	}
	return ticks
}

// spanTicks returns about n round tick values from lo to hi, which may
// be below 0; at most 2n+2 of them, whatever the values (a range too wide
// for a float64, or too narrow for its steps, ends the loop by count).
func spanTicks(lo, hi float64, n int) []float64 {
	step := niceTicks(hi-lo, n)[1]
	var ticks []float64
	for k := math.Ceil(lo / step); k*step <= hi && len(ticks) < 2*n+2; k++ {
		ticks = append(ticks, k*step+0) // +0: no "-0" label
	}
	return ticks
}

// xAxis draws a horizontal value axis at y with grid lines up to top.
func (c *chart) xAxis(s scale, ticks []float64, y, top float64, title string, format func(float64) string) {
	c.Lines = append(c.Lines, line{X1: s.from, Y1: y, X2: s.to, Y2: y, Class: "axis"})
	for _, t := range ticks {
		x := s.at(t)
		c.Lines = append(c.Lines, line{X1: x, Y1: top, X2: x, Y2: y, Class: "grid"})
		c.Labels = append(c.Labels, svgText{X: x, Y: y + 14, Anchor: "middle", Class: "tick", Text: format(t)})
	}
	c.Labels = append(c.Labels, svgText{X: (s.from + s.to) / 2, Y: y + 30, Anchor: "middle", Class: "axis-title", Text: title})
}

// yAxis draws a vertical value axis at x with grid lines across the plot.
func (c *chart) yAxis(s scale, ticks []float64, x, right float64, title string, format func(float64) string) {
	c.Lines = append(c.Lines, line{X1: x, Y1: s.from, X2: x, Y2: s.to, Class: "axis"})
	for _, t := range ticks {
		y := s.at(t)
		c.Lines = append(c.Lines, line{X1: x, Y1: y, X2: right, Y2: y, Class: "grid"})
		c.Labels = append(c.Labels, svgText{X: x - 6, Y: y + 4, Anchor: "end", Class: "tick", Text: format(t)})
	}
	c.Labels = append(c.Labels, svgText{X: 14, Y: (s.from + s.to) / 2, Anchor: "middle", Class: "axis-title y", Text: title})
}

// ms formats milliseconds with three significant digits.
func fmtMS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// tick formats an axis value compactly: whole numbers in full (20000,
// not 2e+04), others with four significant digits.
func tick(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// points formats a polyline's coordinates.
func points(xy [][2]float64) string {
	b := make([]byte, 0, len(xy)*12)
	for i, p := range xy {
		if i > 0 {
			b = append(b, ' ')
		}
		b = fmt.Appendf(b, "%.1f,%.1f", p[0], p[1])
	}
	return string(b)
}

// seriesClass is the colour class of the i-th series: a palette that
// colour-blind readers can tell apart (Okabe and Ito), set in the CSS.
func seriesClass(i int) string { return "s" + strconv.Itoa(i%8) }
