package report

// Waterfalls in the HTML report: one lane per connection, every phase a
// bar in its colour at the time it ran. probe gives one lane per hop of
// each run (a hop that reused a connection says so); page gives one lane
// per connection of its median load, with every request that connection
// carried drawn on it.

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/probe"
)

// wfBar is one phase of one request on a lane; Group tells the requests
// (and the connection's own set-up) of a lane apart.
type wfBar struct {
	Phase      string
	Start, Dur time.Duration
	Tip        string
	Group      int
}

// wfLane is one connection of a waterfall.
type wfLane struct {
	Name string
	Bars []wfBar
}

// wfPhases is the order of the phases in the legend and the tables.
var wfPhases = []string{"queued", "dns", "connect", "tls", "send", "wait", "download"}

// waterfallChart draws the lanes on a common time axis. Requests that
// overlap in time on one connection (HTTP/2's and HTTP/3's streams, a
// request queued while its connection is set up) go on rows of their own
// within the lane, so that no bar hides another.
func waterfallChart(title string, lanes []wfLane) chart {
	var end time.Duration
	rows := make([][]int, len(lanes)) // lane, bar: its row within the lane
	total := 0
	for i, l := range lanes {
		for _, b := range l.Bars {
			end = max(end, b.Start+b.Dur)
		}
		var n int
		rows[i], n = wfRows(l.Bars)
		total += n
	}
	h := plotTop + float64(total)*laneHeight + axisHeight
	c := chart{Title: title, Width: chartWidth, Height: h,
		Comment: "one lane per connection, requests that overlap on it one row each; each bar is a phase, placed at the time it ran (hover for its times)"}
	ticks := niceTicks(float64(end)/1e6, 6)
	xs := scale{lo: 0, hi: ticks[len(ticks)-1], from: plotLeft, to: plotRight}
	c.xAxis(xs, ticks, h-axisHeight, plotTop, "ms", tick)
	used := map[string]bool{}
	y := plotTop
	for i, l := range lanes {
		c.Labels = append(c.Labels, svgText{X: plotLeft - 6, Y: y + laneHeight/2 + 4, Anchor: "end", Class: "lane", Text: clip(l.Name, 30)})
		n := 1
		for j, b := range l.Bars {
			x0, x1 := xs.at(float64(b.Start)/1e6), xs.at(float64(b.Start+b.Dur)/1e6)
			c.Rects = append(c.Rects, rect{X: x0, Y: y + float64(rows[i][j])*laneHeight + 3, W: max(x1-x0, 1), H: laneHeight - 6, Class: phaseClass(b.Phase), Tip: b.Tip})
			used[b.Phase] = true
			n = max(n, rows[i][j]+1)
		}
		y += float64(n) * laneHeight
		if i < len(lanes)-1 {
			c.Lines = append(c.Lines, line{X1: plotLeft, Y1: y, X2: plotRight, Y2: y, Class: "grid"})
		}
	}
	for _, ph := range wfPhases {
		if used[ph] {
			c.Legend = append(c.Legend, legendItem{Class: phaseClass(ph), Text: ph})
		}
	}
	return c
}

// wfRows puts each group of a lane's bars on the first row where it
// overlaps no group before it, and returns each bar's row and how many
// rows the lane needs (at least 1).
func wfRows(bars []wfBar) ([]int, int) {
	type span struct{ from, to time.Duration }
	groups := map[int]span{}
	var order []int
	for _, b := range bars {
		g, ok := groups[b.Group]
		if !ok {
			order = append(order, b.Group)
			g = span{b.Start, b.Start + b.Dur}
		}
		groups[b.Group] = span{min(g.from, b.Start), max(g.to, b.Start+b.Dur)}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(groups[a].from, groups[b].from) })
	var ends []time.Duration // each row's end
	row := map[int]int{}
	for _, g := range order {
		r := slices.IndexFunc(ends, func(e time.Duration) bool { return e <= groups[g].from })
		if r < 0 {
			r = len(ends)
			ends = append(ends, 0)
		}
		ends[r], row[g] = groups[g].to, r
	}
	out := make([]int, len(bars))
	for i, b := range bars {
		out[i] = row[b.Group]
	}
	return out, max(len(ends), 1)
}

func phaseClass(name string) string {
	for _, p := range wfPhases {
		if p == name {
			return "ph-" + p
		}
	}
	return "ph-other"
}

// clip shortens a lane name that would not fit its column.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func msOf(d time.Duration) string { return fmtMS(float64(d) / 1e6) }

// probeSection draws a probe: the waterfall of its runs and their phases.
func probeSection(r *ProbeJSON) section {
	s := section{Meta: []string{fmt.Sprintf("%s, runs: %d", r.URL, len(r.Runs))}}
	var lanes []wfLane
	t := table{Caption: "phases, ms from the start of the run", Head: []string{"connection", "request", "phase", "start", "duration"}}
	for i, run := range r.Runs {
		if run == nil || len(run.Hops) == 0 {
			continue
		}
		t0 := run.Hops[0].Started
		for j, hop := range run.Hops {
			off := hop.Started.Sub(t0)
			name := fmt.Sprintf("run %d", i+1)
			if len(run.Hops) > 1 {
				name += fmt.Sprintf(" hop %d", j+1)
			}
			if hop.Reused {
				name += " (reused)"
			}
			req := fmt.Sprintf("%s %s → %d", hop.Method, hop.URL, hop.Status)
			lanes = append(lanes, wfLane{Name: name, Bars: probeBars(hop, off, req)})
			for _, p := range hop.Phases {
				t.Rows = append(t.Rows, []string{name, req, p.Name, msOf(off + p.Start), msOf(p.Duration)})
			}
		}
		if run.Error != "" {
			s.Notes = append(s.Notes, fmt.Sprintf("run %d failed: %s", i+1, run.Error))
		}
	}
	if len(lanes) > 0 {
		c := waterfallChart("Waterfall", lanes)
		c.Table = t
		s.Charts = append(s.Charts, c)
	}
	if len(r.Runs) > 0 && r.Runs[0] != nil {
		for j, hop := range r.Runs[0].Hops {
			s.Tables = append(s.Tables, hopFacts(hop, j, len(r.Runs[0].Hops)))
			if len(hop.Header) > 0 {
				s.Tables = append(s.Tables, headerTable(hop))
			}
		}
	}
	return s
}

// hopFacts is what the connection of one hop of the first run was: the
// address, the protocol, and TLS's version, cipher, group, ALPN and
// certificate chain, each certificate's subject and issuer as sent.
func hopFacts(hop probe.Timeline, j, hops int) table {
	t := table{Caption: "run 1: connection and TLS", Head: []string{"", "value"}}
	if hops > 1 {
		t.Caption = fmt.Sprintf("run 1, hop %d: connection and TLS", j+1)
	}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("request", fmt.Sprintf("%s %s", hop.Method, hop.URL))
	add("status", fmt.Sprintf("%d %s", hop.Status, hop.Proto))
	add("remote address", hop.RemoteAddr)
	if hop.Err != "" {
		add("error", hop.Err)
	}
	tl := hop.TLS
	if tl == nil {
		return t
	}
	add("TLS", fmt.Sprintf("%s, %s, %s, ALPN %q, resumed %v", tl.Version, tl.CipherSuite, tl.Group, tl.ALPN, tl.Resumed))
	add("server name", tl.ServerName)
	for i, c := range tl.Chain {
		add(fmt.Sprintf("certificate %d", i), fmt.Sprintf("subject %s; issuer %s; %s; %d bytes", c.Subject, c.Issuer, c.KeyType, c.Bytes))
	}
	return t
}

// headerTable lists a hop's response headers as the server sent them.
func headerTable(hop probe.Timeline) table {
	t := table{Caption: "response headers of " + hop.URL, Head: []string{"header", "value"}}
	for _, k := range slices.Sorted(maps.Keys(hop.Header)) {
		for _, v := range hop.Header[k] {
			t.Rows = append(t.Rows, []string{k, v})
		}
	}
	return t
}

func probeBars(hop probe.Timeline, off time.Duration, req string) []wfBar {
	var bars []wfBar
	for _, p := range hop.Phases {
		bars = append(bars, wfBar{Phase: p.Name, Start: off + p.Start, Dur: p.Duration,
			Tip: fmt.Sprintf("%s\n%s: %s ms, from %s ms", req, p.Name, msOf(p.Duration), msOf(off+p.Start))})
	}
	return bars
}

// connBars are a page connection's own set-up phases: a connection
// opened for a request that another one then carried has no request to
// draw them.
func connBars(c page.Conn) []wfBar {
	var bars []wfBar
	tip := fmt.Sprintf("connection #%d to %s", c.ID, c.Origin)
	if c.Connected > 0 {
		bars = append(bars, wfBar{Phase: "connect", Start: c.Start, Dur: c.Connected - c.Start,
			Tip: fmt.Sprintf("%s\nconnect: %s ms, from %s ms", tip, msOf(c.Connected-c.Start), msOf(c.Start))})
	}
	if c.Ready > 0 {
		from := max(c.Connected, c.Start)
		bars = append(bars, wfBar{Phase: "tls", Start: from, Dur: c.Ready - from,
			Tip: fmt.Sprintf("%s\nhandshake: %s ms, from %s ms", tip, msOf(c.Ready-from), msOf(from))})
	}
	return bars
}

// pageWaterfallLanes gives one lane per connection of a load, and one for the
// requests that got none (failed before one, or skipped).
func pageWaterfallLanes(l *page.Load) ([]wfLane, table) {
	idx := map[int]int{}
	var lanes []wfLane
	for _, c := range l.Conns {
		idx[c.ID] = len(lanes)
		name := fmt.Sprintf("#%d %s %s", c.ID, c.Proto, strings.TrimPrefix(strings.TrimPrefix(c.Origin, "https://"), "http://"))
		if c.Resumed {
			name += " resumed"
		}
		lanes = append(lanes, wfLane{Name: name, Bars: connBars(c)})
	}
	t := table{Caption: "requests, ms from the start of the load", Head: []string{"request", "connection", "status", "start", "end"}}
	t.Head = append(t.Head, wfPhases...)
	for _, rq := range l.Requests {
		i, ok := idx[rq.Conn]
		if !ok {
			idx[rq.Conn] = len(lanes)
			i = len(lanes)
			lanes = append(lanes, wfLane{Name: "no connection"})
		}
		row := []string{fmt.Sprintf("%d %s", rq.ID, rq.URL), fmt.Sprint(rq.Conn), fmt.Sprint(rq.Status), msOf(rq.Start), msOf(rq.End)}
		durs := map[string]time.Duration{}
		for _, p := range rq.Phases {
			lanes[i].Bars = append(lanes[i].Bars, wfBar{Phase: p.Name, Start: p.Start, Dur: p.Duration, Group: rq.ID,
				Tip: fmt.Sprintf("%s (%s)\n%s: %s ms, from %s ms", rq.URL, rq.Kind, p.Name, msOf(p.Duration), msOf(p.Start))})
			durs[p.Name] += p.Duration
		}
		for _, ph := range wfPhases {
			if d, ok := durs[ph]; ok {
				row = append(row, msOf(d))
			} else {
				row = append(row, "-")
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return lanes, t
}
