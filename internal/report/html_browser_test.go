//go:build !race

// The browser test drives Chromium, a separate process the race detector
// cannot see into: under -race it would only add time, so it is built
// without -race only and scripts/test.sh runs it once, in its plain pass.

package report_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/chromedp/chromedp"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestHTMLInBrowser opens the report of real results of every kind in
// Chromium, in the light and the dark scheme, and checks over the
// DevTools protocol that the page logs nothing and asks the network for
// nothing, and that the drawing matches the data: waterfall bars at the
// x positions their phase times give on the lanes of their connections,
// the histogram's bars adding up to all the requests, compare's and
// experiment's dots at their medians and changes, audit's bars as long
// as the counts, each bar in its colour on the screenshot; and the
// overlay of two page results, a dot per result and protocol.
func TestHTMLInBrowser(t *testing.T) {
	srv, ca := labTarget(t)
	docs := []*report.Document{
		readDoc(t, runJSON(t, "bench", "--json", "--cacert", ca, "-d", "3s", "-c", "2", srv.HTTPSURL+"/")),
		readDoc(t, runJSON(t, "probe", "--json", "--cacert", ca, "-n", "2", "-L", srv.HTTPSURL+"/redirect/1")),
		readDoc(t, runJSON(t, "compare", "--json", "--cacert", ca, "--vary", "tls", "-n", "5", srv.HTTPSURL+"/")),
		readDoc(t, runJSON(t, "audit", "--json", "--cacert", ca, "--attempts", "2", srv.HTTPSURL+"/")),
		readDoc(t, runJSON(t, "page", "--json", "--cacert", ca, "-n", "2", "--protocols", "h1,h2", srv.HTTPSURL+"/page/styled")),
		readDoc(t, experimentOutput(t)),
		readDoc(t, runJSON(t, "demo", "--json", "--runs", "2", "--bench-time", "200ms")),
		readDoc(t, runJSON(t, "page", "--json", "--cacert", ca, "-n", "2", "--protocols", "h1,h2", "--urls", surveyURLs(t, srv.HTTPSURL))),
	}
	file := filepath.Join(t.TempDir(), "report.html")
	html := renderHTML(t, []string{"bench", "probe", "compare", "audit", "page", "experiment", "demo", "survey"}, docs...)
	if err := os.WriteFile(file, []byte(html), 0o600); err != nil {
		t.Fatal(err)
	}
	browser := startBrowser(t)
	for _, dark := range []bool{false, true} {
		tb := open(t, browser, file, dark)
		tb.checkQuiet(t, fmt.Sprintf("report (dark %v)", dark), file)
		figs := tb.layout(t)
		bg, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
		if err != nil || bg != bgRGB[dark] {
			t.Errorf("dark %v: the page's background is %q, %v; want %s", dark, bg, err, bgRGB[dark])
		}
		checkHistogram(t, tb, figs, dark)
		checkRateLine(t, figs, docs[0].Result.(*report.BenchJSON))
		if dark {
			continue // the rest is drawn in the same places in either scheme
		}
		checkProbeWaterfall(t, tb, figs, docs[1].Result.(*report.ProbeJSON))
		checkPageWaterfalls(t, tb, figs, docs[4].Result.(*page.Result))
		checkCompareDots(t, figs, docs[2].Result.(*report.CompareJSON))
		checkAuditBars(t, tb, figs, docs[3].Result.(*tlsscan.Report))
		checkExperimentDots(t, figs, docs[5].Result.(*report.ExperimentJSON))
		checkSurveySteps(t, figs, docs[7].Result.(*page.SurveyResult))
		dom, err := chromedp.Run(tb.ctx, chromedp.OuterHTML(chromedp.CSS("html")))
		if err != nil {
			t.Fatal(err)
		}
		checkOffline(t, "the DOM Chromium parsed", dom)
		checkBrowserNumbers(t, dom, docs)
	}
	checkPageOverlay(t, browser, docs[4])
	checkBlockedLoadSeen(t, browser)
}

// checkPageOverlay opens the report of two page results, the one above
// and a copy 7 ms slower, and checks their overlay: one dot per result and
// protocol, at its median on its lane, in the result's colour class.
func checkPageOverlay(t *testing.T, browser context.Context, doc *report.Document) {
	t.Helper()
	r := doc.Result.(*page.Result)
	slower := *r
	slower.Protocols = slices.Clone(r.Protocols)
	for i := range slower.Protocols {
		slower.Protocols[i].LoadTime.Median += 7
	}
	doc2 := *doc
	doc2.Result = &slower
	labels := []string{"page", "page+7ms"}
	file := filepath.Join(t.TempDir(), "overlay.html")
	if err := os.WriteFile(file, []byte(renderHTML(t, labels, doc, &doc2)), 0o600); err != nil {
		t.Fatal(err)
	}
	tb := open(t, browser, file, false)
	tb.checkQuiet(t, "page overlay", file)
	f, ok := tb.layout(t)["s0/Median page load per protocol and result"]
	if !ok {
		t.Fatal("page overlay: no chart of both results")
	}
	xa, lanes := f.xAxis(t), laneY(f)
	for i, res := range []*page.Result{r, &slower} {
		for _, p := range res.Protocols {
			name := string(p.Protocol) + " " + labels[i]
			y, ok := lanes[name]
			if !ok {
				t.Errorf("page overlay: no lane %q (lanes %v)", name, lanes)
				continue
			}
			found := false
			for _, d := range f.Rects {
				found = found || d.Class == fmt.Sprintf("s%d", i) && math.Abs(d.Box.cx()-xa.px(p.LoadTime.Median)) < 1.5 && math.Abs(d.Box.cy()-y) < 4
			}
			if !found {
				t.Errorf("page overlay: no s%d dot for %s at its median %.3f ms (x %.1f)", i, name, p.LoadTime.Median, xa.px(p.LoadTime.Median))
			}
		}
	}
	if want := 2 * len(r.Protocols); len(f.Rects) != want {
		t.Errorf("page overlay: %d dots; want %d, one per result and protocol", len(f.Rects), want)
	}
}

// checkBlockedLoadSeen makes sure the quiet check can fail: a page under
// the same policy that asks for an image on loopback (a port nothing
// listens on) and sets a style attribute must show the request and the
// policy's messages.
func checkBlockedLoadSeen(t *testing.T, browser context.Context) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "load.html")
	doc := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'">` +
		`</head><body><img src="http://127.0.0.1:9/x.png"><p style="color: red">x</p></body></html>`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	tb := open(t, browser, file, false)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.messages) < 2 || !strings.Contains(strings.Join(tb.requests, " "), "http://127.0.0.1:9/x.png") {
		t.Errorf("a page that loads an image and sets a style left messages %q and requests %q; the checks of the report cannot see either",
			tb.messages, tb.requests)
	}
}

// checkHistogram checks bench's histogram: its bars add up to every
// request on the vertical axis, and are in the first series' colour.
func checkHistogram(t *testing.T, tb *tab, figs map[string]figure, dark bool) {
	t.Helper()
	f, ok := figs["s0/Latency histogram"]
	if !ok || len(f.Rects) == 0 {
		t.Fatalf("no latency histogram with bars")
	}
	ya := f.yAxis(t)
	sum := 0.0
	for _, r := range f.Rects {
		sum += r.Box.H / -ya.per
	}
	if math.Abs(sum-100) > 1.5 {
		t.Errorf("histogram bars add up to %.2f%% of the requests; want 100%%", sum)
	}
	if n := checkColours(t, tb, f, func(string) string { return s0RGB[dark] }); n == 0 {
		t.Errorf("histogram: no bar wide enough to sample")
	}
}

// checkRateLine checks bench's requests/s over time: a point for each
// second of at least half a second, at its end and its rate.
func checkRateLine(t *testing.T, figs map[string]figure, b *report.BenchJSON) {
	t.Helper()
	f := figs["s0/Requests/s and errors/s over time"]
	if len(f.Paths) == 0 {
		t.Fatalf("bench: no line of requests/s over time")
	}
	xa, ya := f.xAxis(t), f.yAxis(t)
	pts := f.Paths[0].Pts
	n := 0
	for _, iv := range b.Intervals {
		if iv.Partial && iv.LengthSeconds < 0.5 {
			continue
		}
		if n >= len(pts) {
			t.Errorf("bench requests/s: %d points; want one per second of the run, %d or more", len(pts), n+1)
			return
		}
		x, y := xa.px(float64(iv.OffsetSeconds)+iv.LengthSeconds), ya.px(float64(iv.Requests)/iv.LengthSeconds)
		if p := pts[n]; math.Abs(p[0]-x) > 1.5 || math.Abs(p[1]-y) > 1.5 {
			t.Errorf("bench requests/s: second %d drawn at (%.1f, %.1f); want (%.1f, %.1f), %d requests", iv.OffsetSeconds, p[0], p[1], x, y, iv.Requests)
		}
		n++
	}
	if n != len(pts) || n < 2 {
		t.Errorf("bench requests/s: %d points for %d seconds; want one per second, 2 or more", len(pts), n)
	}
}

// laneY maps each lane's name to the vertical centre of its lane.
func laneY(f figure) map[string]float64 {
	m := map[string]float64{}
	for _, l := range f.Lanes {
		m[l.Text] = l.Box.cy()
	}
	return m
}

// laneSpan maps each lane's name to its vertical extent: from the top of
// its first row (its label's row) to the top of the next lane's.
func laneSpan(f figure) map[string][2]float64 {
	m := map[string][2]float64{}
	for i, l := range f.Lanes {
		half := l.Box.H // at least half a row above the label's centre
		end := f.H
		if i+1 < len(f.Lanes) {
			end = f.Lanes[i+1].Box.cy() - half
		}
		m[l.Text] = [2]float64{l.Box.cy() - half, end}
	}
	return m
}

// findBar tells whether a bar of class cls starts at x and spans w within
// the lane's extent span.
func findBar(f figure, cls string, x, w float64, span [2]float64) bool {
	for _, r := range f.Rects {
		if r.Class == cls && math.Abs(r.Box.X-x) < 1.5 && math.Abs(r.Box.W-max(w, 1)) < 1.5 && r.Box.Y > span[0] && r.Box.Y+r.Box.H < span[1] {
			return true
		}
	}
	return false
}

// checkProbeWaterfall checks probe's waterfall: a lane per hop of every
// run, each phase a bar from its start for its duration on its hop's lane.
func checkProbeWaterfall(t *testing.T, tb *tab, figs map[string]figure, r *report.ProbeJSON) {
	t.Helper()
	f, ok := figs["s1/Waterfall"]
	if !ok {
		t.Fatal("probe: no waterfall")
	}
	xa, lanes := f.xAxis(t), laneSpan(f)
	hops := 0
	for i, run := range r.Runs {
		for j, hop := range run.Hops {
			hops++
			name := fmt.Sprintf("run %d hop %d", i+1, j+1)
			if hop.Reused {
				name += " (reused)"
			}
			y, ok := lanes[name]
			if !ok {
				t.Errorf("probe waterfall: no lane %q (lanes %v)", name, lanes)
				continue
			}
			off := hop.Started.Sub(run.Hops[0].Started)
			for _, p := range hop.Phases {
				x0, x1 := xa.px(ms(off+p.Start)), xa.px(ms(off+p.Start+p.Duration))
				if !findBar(f, "ph-"+p.Name, x0, x1-x0, y) {
					t.Errorf("probe waterfall: no %s bar of %s at x %.1f, %.1f wide", p.Name, name, x0, x1-x0)
				}
			}
		}
	}
	if len(f.Lanes) != hops {
		t.Errorf("probe waterfall: %d lanes; want %d, one per hop", len(f.Lanes), hops)
	}
	checkColours(t, tb, f, func(c string) string { return phaseRGB[c] })
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// checkPageWaterfalls checks each protocol's waterfall: one lane per
// connection, each request's phases on its connection's lane at their
// times.
func checkPageWaterfalls(t *testing.T, tb *tab, figs map[string]figure, r *page.Result) {
	t.Helper()
	for _, p := range r.Protocols {
		var f figure
		for title, fg := range figs {
			if strings.HasPrefix(title, fmt.Sprintf("s4/Waterfall of the median %s load", p.Protocol)) {
				f = fg
				break
			}
		}
		if f.ID == "" || p.Median == nil {
			t.Errorf("page: no waterfall of the median %s load", p.Protocol)
			continue
		}
		conns := map[int][2]float64{}
		for name, span := range laneSpan(f) {
			if id, _, ok := strings.Cut(strings.TrimPrefix(name, "#"), " "); ok && strings.HasPrefix(name, "#") {
				n, _ := strconv.Atoi(id)
				conns[n] = span
			}
		}
		if len(conns) != len(p.Median.Conns) {
			t.Errorf("page %s waterfall: %d connection lanes; want %d, one per connection", p.Protocol, len(conns), len(p.Median.Conns))
		}
		xa := f.xAxis(t)
		for _, rq := range p.Median.Requests {
			y, ok := conns[rq.Conn]
			if !ok {
				continue
			}
			for _, ph := range rq.Phases {
				x0, x1 := xa.px(ms(ph.Start)), xa.px(ms(ph.Start+ph.Duration))
				if !findBar(f, "ph-"+ph.Name, x0, x1-x0, y) {
					t.Errorf("page %s waterfall: no %s bar of request %d on connection #%d at x %.1f", p.Protocol, ph.Name, rq.ID, rq.Conn, x0)
				}
			}
		}
		checkColours(t, tb, f, func(c string) string { return phaseRGB[c] })
	}
}

// checkCompareDots checks compare's medians: each measured variant's dot
// centred on its median, on its lane; and one dot per sample on the scatter.
func checkCompareDots(t *testing.T, figs map[string]figure, r *report.CompareJSON) {
	t.Helper()
	f := figs["s2/Median total time per variant"]
	xa, lanes := f.xAxis(t), laneY(f)
	samples := 0
	for _, v := range r.Result.Variants {
		samples += len(v.Samples)
		y, ok := lanes[v.Name]
		if !ok || v.Total.N == 0 {
			continue
		}
		found := false
		for _, d := range f.Rects {
			found = found || math.Abs(d.Box.cx()-xa.px(v.Total.Median)) < 1.5 && math.Abs(d.Box.cy()-y) < 4
		}
		if !found {
			t.Errorf("compare: no dot for %s at its median %.3f ms (x %.1f)", v.Name, v.Total.Median, xa.px(v.Total.Median))
		}
	}
	if sc := figs["s2/Total time of every round per variant"]; len(sc.Rects) != samples {
		t.Errorf("compare scatter: %d dots; want %d, one per sample", len(sc.Rects), samples)
	}
}

// checkAuditBars checks audit's bars: one per severity found, as long as
// its count on the axis.
func checkAuditBars(t *testing.T, tb *tab, figs map[string]figure, r *tlsscan.Report) {
	t.Helper()
	f := figs["s3/Findings by severity"]
	counts := map[string]int{}
	for _, fd := range r.Findings {
		counts["sev-"+fd.Severity.String()]++
	}
	xa := f.xAxis(t)
	for _, b := range f.Rects {
		if got := b.Box.W / xa.per; math.Abs(got-float64(counts[b.Class])) > 0.05 {
			t.Errorf("audit: the %s bar is %.2f findings long; want %d", b.Class, got, counts[b.Class])
		}
		delete(counts, b.Class)
	}
	if len(counts) > 0 {
		t.Errorf("audit: no bar for %v", counts)
	}
	sev := map[string]string{"sev-high": "rgb(213, 94, 0)", "sev-medium": "rgb(230, 159, 0)", "sev-low": "rgb(86, 180, 233)", "sev-info": "rgb(153, 153, 153)"}
	checkColours(t, tb, f, func(c string) string { return sev[c] })
}

// checkExperimentDots checks experiment's changes: each verdict's dot at
// its change (percent for a ratio) on its variant's lane.
func checkExperimentDots(t *testing.T, figs map[string]figure, r *report.ExperimentJSON) {
	t.Helper()
	for _, v := range r.Analysis.Verdicts {
		f, ok := figs["s5/Change in "+v.Metric+" against the baseline"]
		if !ok {
			t.Errorf("experiment: no chart of %s", v.Metric)
			continue
		}
		want := v.Shift
		if v.Ratio {
			want *= 100
		}
		xa, y := f.xAxis(t), laneY(f)[v.Variant]
		found := false
		for _, d := range f.Rects {
			found = found || math.Abs(d.Box.cx()-xa.px(want)) < 1.5 && math.Abs(d.Box.cy()-y) < 4
		}
		if !found {
			t.Errorf("experiment: no dot for %s %s at %g (x %.1f)", v.Variant, v.Metric, want, xa.px(want))
		}
	}
}

// checkSurveySteps checks the survey's distributions: each difference's
// line climbs from 0% to 100% of the pages, with a step at each page's
// difference.
func checkSurveySteps(t *testing.T, figs map[string]figure, r *page.SurveyResult) {
	t.Helper()
	f := figs["s7/Each difference across pages"]
	if len(f.Paths) != len(r.Effects) || len(r.Effects) == 0 {
		t.Fatalf("survey: %d lines; want one per difference, %d", len(f.Paths), len(r.Effects))
	}
	xa, ya := f.xAxis(t), f.yAxis(t)
	for i, e := range r.Effects {
		pts := f.Paths[i].Pts
		if first, last := pts[0], pts[len(pts)-1]; math.Abs(first[1]-ya.px(0)) > 1.5 || math.Abs(last[1]-ya.px(100)) > 1.5 {
			t.Errorf("survey %s: the line runs from y %.1f to %.1f; want %.1f (0%%) to %.1f (100%%)", e.Name, first[1], last[1], ya.px(0), ya.px(100))
		}
		for _, v := range e.MS {
			found := false
			for _, p := range pts {
				found = found || math.Abs(p[0]-xa.px(v)) < 1.5
			}
			if !found {
				t.Errorf("survey %s: no step at a page's difference of %.3f ms (x %.1f)", e.Name, v, xa.px(v))
			}
		}
	}
}

// checkBrowserNumbers checks cells of the parsed tables against the
// results: bench's spectrum against its HDR histogram, compare's medians
// and the count of audit's findings.
func checkBrowserNumbers(t *testing.T, dom string, docs []*report.Document) {
	t.Helper()
	b := docs[0].Result.(*report.BenchJSON)
	h, err := hdrhistogram.Decode([]byte(b.Latency["total"].HDR))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{50, 99, 99.99} {
		want := float64(h.ValueAtPercentile(p)) / 1000
		if got := tableMS(t, dom, "p"+strconv.FormatFloat(p, 'g', -1, 64)); !near(got, want) {
			t.Errorf("bench spectrum p%g = %g ms in the browser; want %g", p, got, want)
		}
	}
	cmp := docs[2].Result.(*report.CompareJSON).Result
	for _, v := range cmp.Variants {
		row := regexp.MustCompile(`<th scope="row">` + regexp.QuoteMeta(v.Name) + `</th><td>[0-9]+</td><td>([0-9.]+)</td>`).FindStringSubmatch(dom)
		if row == nil {
			t.Errorf("compare table: no row for %s", v.Name)
			continue
		}
		if got, _ := strconv.ParseFloat(row[1], 64); !near(got, v.Total.Median) {
			t.Errorf("compare %s median = %g ms in the browser; want %g", v.Name, got, v.Total.Median)
		}
	}
}

// near tells whether a number shown with three significant digits is x.
func near(shown, x float64) bool { return math.Abs(shown-x) <= math.Abs(x)*0.005+0.0005 }
