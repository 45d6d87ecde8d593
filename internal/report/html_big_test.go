//go:build !race

// The 10-million-request reports are built from synthetic interval logs
// and opened in Chromium: heavy work the race detector would only slow,
// so it runs once, in the pass without -race.

package report_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/chromedp/chromedp"
	"github.com/httpslab/httpslab/internal/report"
)

// The shape of the synthetic runs: 600 one-second intervals of 16,666 or
// 16,667 requests, 10,000,000 in all.
const (
	bigSeconds  = 600
	bigRequests = 10_000_000
)

var bigPhases = []string{"connect", "tls", "waiting", "total"}

// newBenchHist is a histogram with bench's range and precision (1 µs to
// an hour, 3 digits).
func newBenchHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
}

// syntheticIntervalLog writes an HdrHistogram interval log of a run of
// bigRequests requests in bigSeconds one-second intervals, one histogram
// per phase and second, tagged with the phase. Latency follows a
// long-tailed shape on 200 quantiles that drifts slowly (a tenth up and
// down over ten minutes) and triples for ten seconds from second 300;
// seed moves the drift so that overlaid runs differ.
func syntheticIntervalLog(t *testing.T, seed int) []byte {
	t.Helper()
	var b bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&b)
	start := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC).UnixMilli()
	lw.SetBaseTime(start)
	for _, err := range []error{lw.OutputLogFormatVersion(), lw.OutputStartTime(start), lw.OutputBaseTime(start), lw.OutputLegend()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	base := map[string]float64{"connect": 60, "tls": 450, "waiting": 1800}
	for s := range bigSeconds {
		n := int64(bigRequests / bigSeconds)
		if s < bigRequests%bigSeconds {
			n++
		}
		k := 1 + 0.1*math.Sin(float64(s+60*seed)/95)
		if s >= 300 && s < 310 {
			k *= 3
		}
		hs := map[string]*hdrhistogram.Histogram{}
		for _, ph := range bigPhases {
			hs[ph] = newBenchHist()
		}
		for q := range 200 {
			count := n / 200
			if int64(q) < n%200 {
				count++
			}
			tail := -math.Log(1 - (float64(q)+0.5)/200) // exponential quantile: a long tail
			var total float64
			for _, ph := range []string{"connect", "tls", "waiting"} {
				v := base[ph] * k * (0.6 + 0.4*tail)
				total += v
				_ = hs[ph].RecordValues(int64(v), count)
			}
			_ = hs["total"].RecordValues(int64(total), count)
		}
		for _, ph := range bigPhases {
			h := hs[ph]
			h.SetTag(ph)
			h.SetStartTimeMs(start + int64(s)*1000)
			h.SetEndTimeMs(start + int64(s+1)*1000)
			if err := lw.OutputIntervalHistogram(h); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.Bytes()
}

// benchFromLog reads an interval log back into a bench result: its
// intervals with each phase's histogram, the run's histograms merged from
// them, 0.1% errors in the ten slow seconds.
func benchFromLog(t *testing.T, log []byte) []byte {
	t.Helper()
	lr := hdrhistogram.NewHistogramLogReader(bytes.NewReader(log))
	run := map[string]*hdrhistogram.Histogram{}
	for _, ph := range bigPhases {
		run[ph] = newBenchHist()
	}
	var ivs []report.BenchInterval
	var errs int64
	for {
		h, err := lr.NextIntervalHistogram()
		if err == io.EOF || h == nil && err == nil {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		s := int64(len(ivs))
		if h.Tag() == "connect" {
			ivs = append(ivs, report.BenchInterval{OffsetSeconds: s, Start: time.UnixMilli(h.StartTimeMs()).UTC(), LengthSeconds: 1})
			s++
		}
		iv := &ivs[s-1]
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		switch h.Tag() {
		case "connect":
			iv.HDR.Connect = string(enc)
		case "tls":
			iv.HDR.TLS = string(enc)
		case "waiting":
			iv.HDR.Waiting = string(enc)
		case "total":
			iv.HDR.Total, iv.Requests = string(enc), h.TotalCount()
			if iv.OffsetSeconds >= 300 && iv.OffsetSeconds < 310 {
				iv.Errors = iv.Requests / 1000
				errs += iv.Errors
			}
		}
		run[h.Tag()].Merge(h)
	}
	lat := map[string]report.BenchHist{}
	for ph, h := range run {
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		lat[ph] = report.BenchHist{Count: h.TotalCount(), Min: h.Min(), Mean: h.Mean(), StdDev: h.StdDev(), Max: h.Max(),
			Percentiles: map[string]int64{"p50": h.ValueAtPercentile(50)}, HDR: string(enc)}
	}
	n := run["total"].TotalCount()
	j := report.BenchJSON{Target: []string{"https://127.0.0.1:8443/"}, Protocol: "HTTP/1.1", Conns: 64, Streams: 1, Mode: "new",
		ElapsedSeconds: bigSeconds, Requests: n, Errors: errs, RequestsPerSec: float64(n) / bigSeconds, Connections: n, Handshakes: n,
		Status: map[string]int64{"200": n - errs}, ErrorMessages: map[string]int64{"read: connection reset by peer": errs},
		TLS: []report.BenchTLS{}, Latency: lat, Intervals: ivs,
		Run: report.BenchRun{StartedAt: ivs[0].Start, Host: "a", ClockSource: "none", ConfigHash: "sha256:" + strings.Repeat("0", 64)}}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, "bench", j); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHTMLTenMillion overlays three bench results of 10 million requests
// each, made from synthetic interval logs of 600 one-second intervals with
// every phase: the report stays under 2 MB, draws each run's requests/s
// and latency over time with at most 200 points a line, and opens in
// Chromium within a loose bound, quiet. With HTTPSLAB_REPORT_DIR set, the
// results and the report are written there (scripts/report-size.sh times
// the report's opening with them).
func TestHTMLTenMillion(t *testing.T) {
	dir := os.Getenv("HTTPSLAB_REPORT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	var docs []*report.Document
	var labels []string
	for i := range 3 {
		doc := benchFromLog(t, syntheticIntervalLog(t, i))
		name := fmt.Sprintf("run%d.json", i+1)
		if err := os.WriteFile(filepath.Join(dir, name), doc, 0o600); err != nil {
			t.Fatal(err)
		}
		d := readDoc(t, doc)
		if b := d.Result.(*report.BenchJSON); b.Requests != bigRequests || len(b.Intervals) != bigSeconds {
			t.Fatalf("%s: %d requests in %d intervals; want %d in %d", name, b.Requests, len(b.Intervals), bigRequests, bigSeconds)
		}
		docs, labels = append(docs, d), append(labels, name)
		t.Logf("%s: %d bytes of JSON", name, len(doc))
	}
	page := renderHTML(t, labels, docs...)
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("report of three overlaid runs of 10 million requests: %d bytes", len(page))
	if len(page) >= 2_000_000 {
		t.Errorf("report is %d bytes; want under 2 MB", len(page))
	}
	for _, w := range []string{"bench: 3 results overlaid", "Requests/s over time", "Errors/s over time", "Total latency over time (p50 solid, p99 dashed)"} {
		if !strings.Contains(page, w) {
			t.Errorf("report has no %q", w)
		}
	}
	browser := startBrowser(t)
	began := time.Now()
	tb := open(t, browser, file, false)
	opened := time.Since(began)
	t.Logf("Chromium opened the report in %v", opened)
	if opened > 30*time.Second {
		t.Errorf("Chromium took %v to open the report; want under 30 s", opened)
	}
	tb.checkQuiet(t, "the 10-million-request report", file)
	checkTimeLines(t, tb)
}

// checkTimeLines checks the lines over time the browser drew: every run's
// and the overlay's, none with more than 200 points.
func checkTimeLines(t *testing.T, tb *tab) {
	t.Helper()
	counts, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll('figure')].filter(f => /over time/.test(f.querySelector('figcaption').textContent)).flatMap(f => [...f.querySelectorAll('polyline')].map(p => p.points.numberOfItems))`))
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) < 3*2+3 { // per run: requests/s, errors/s, p50, p99 in its own section, less what has no errors; overlay: 3 lines a chart
		t.Errorf("%d lines over time; want at least 9", len(counts))
	}
	for _, n := range counts {
		if n > 200 || n < 2 {
			t.Errorf("a line over time has %d points; want 2 to 200", n)
		}
	}
}
