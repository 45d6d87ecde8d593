package report

// page --urls in the HTML report: how each difference between protocols
// spreads across the pages, as a distribution (the share of pages whose
// shift is at most x ms), with the quantiles that give the survey's
// sentences ("for 90% of pages, TLS alone adds more than X ms"), and the
// table of every page's medians and differences.

import (
	"fmt"
	"strings"

	"github.com/httpslab/httpslab/internal/page"
)

// surveySection draws a survey of pages.
func surveySection(r *page.SurveyResult) section {
	var protos []string
	for _, p := range r.Protocols {
		protos = append(protos, string(p))
	}
	s := section{Meta: []string{fmt.Sprintf("%d pages over %s, %d rounds each", len(r.Pages), strings.Join(protos, ", "), r.Rounds)}}
	if len(r.Effects) > 0 {
		s.Charts = append(s.Charts, spreadChart(r.Effects))
	}
	t := table{Caption: "each page: median load time per protocol and the differences, ms", Head: []string{"page"}}
	t.Head = append(t.Head, protos...)
	for _, e := range r.Effects {
		t.Head = append(t.Head, e.Name)
	}
	t.Head = append(t.Head, "error")
	for _, p := range r.Pages {
		row := []string{p.URL}
		for i := range r.Protocols {
			if i < len(p.LoadTimes) && p.LoadTimes[i].N > 0 {
				row = append(row, fmtMS(p.LoadTimes[i].Median))
			} else {
				row = append(row, "-")
			}
		}
		for _, e := range r.Effects {
			cell := "-"
			for _, d := range p.Differences {
				if d.From == e.From && d.To == e.To {
					cell = diffText(d.Diff)
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, append(row, p.Error))
	}
	s.Tables = append(s.Tables, t)
	return s
}

// spreadChart draws each difference's distribution across pages: the
// share of pages (up) whose shift is at most the value across.
func spreadChart(effects []page.Spread) chart {
	c := chart{Title: "Each difference across pages", Width: chartWidth, Height: chartHeight,
		Comment: "share of pages whose difference is at most x ms; right of the dashed zero line a protocol adds time, left of it saves time"}
	lo, hi := 0.0, 0.0
	for _, e := range effects {
		for _, v := range e.MS {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	pad := max((hi-lo)*0.05, 0.1)
	xs := scale{lo: lo - pad*btof(lo < 0), hi: hi + pad, from: plotLeft - 100, to: plotRight}
	ys := scale{lo: 0, hi: 100, from: chartHeight - axisHeight, to: plotTop}
	ticks := spanTicks(xs.lo, xs.hi, 6)
	c.yAxis(ys, []float64{0, 25, 50, 75, 100}, xs.from, xs.to, "% of pages", tick)
	c.xAxis(xs, ticks, ys.from, plotTop, "difference, ms", tick)
	c.Lines = append(c.Lines, line{X1: xs.at(0), Y1: plotTop, X2: xs.at(0), Y2: ys.from, Class: "zero"})
	c.Table = table{Caption: "each difference's quantiles across pages, ms (round trips)", Head: []string{"difference", "pages"}}
	for _, q := range page.SpreadLevels {
		c.Table.Head = append(c.Table.Head, fmt.Sprintf("%g%%", 100*q))
	}
	for i, e := range effects {
		n := len(e.MS)
		var xy [][2]float64 // a step at each page's shift (MS is sorted)
		for k, v := range e.MS {
			xy = append(xy, [2]float64{v, 100 * float64(k) / float64(n)}, [2]float64{v, 100 * float64(k+1) / float64(n)})
		}
		var px [][2]float64
		for _, p := range lttb(xy, timePoints) {
			px = append(px, [2]float64{xs.at(p[0]), ys.at(p[1])})
		}
		cls := seriesClass(i)
		c.Paths = append(c.Paths, polyline{Points: points(px), Class: cls, Tip: e.Name})
		c.Legend = append(c.Legend, legendItem{Class: cls, Text: fmt.Sprintf("%s (%s → %s)", e.Name, e.From, e.To)})
		row := []string{e.Name, fmt.Sprint(n)}
		for k, q := range e.QuantMS {
			cell := fmtSigned(q)
			if k < len(e.QuantRTTs) {
				cell += fmt.Sprintf(" (%.1f RTT)", e.QuantRTTs[k])
			}
			row = append(row, cell)
		}
		c.Table.Rows = append(c.Table.Rows, row)
	}
	return c
}

// fmtSigned is a difference in ms with its sign.
func fmtSigned(v float64) string {
	if v < 0 {
		return "-" + fmtMS(-v)
	}
	return "+" + fmtMS(v)
}
