package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/page"
)

// pageLoad is a load of a document and four images over conns
// connections of proto, each request 10 ms long.
func pageLoad(proto page.Protocol, conns int) *page.Load {
	ms := time.Millisecond
	ld := &page.Load{Protocol: proto, Duration: 60 * ms, TTFB: 5 * ms, Failed: 1}
	for i := 1; i <= conns; i++ {
		ld.Conns = append(ld.Conns, page.Conn{ID: i, Origin: "https://a.test:443", Proto: "h2", TLSVersion: "TLS 1.3",
			Start: time.Duration(i) * ms, Connected: time.Duration(i+2) * ms, Ready: time.Duration(i+6) * ms, End: 60 * ms, Requests: 5 / conns})
	}
	for i := range 5 {
		start := time.Duration(8+10*i) * ms
		r := page.Request{ID: i + 1, URL: "https://a.test/x", Kind: page.KindImage, Conn: 1 + i%conns, Status: 200, Proto: "HTTP/2.0", Start: start, End: start + 10*ms,
			Phases: []page.Phase{{Name: page.PhaseWait, Start: start, Duration: 4 * ms}, {Name: page.PhaseDownload, Start: start + 4*ms, Duration: 6 * ms}}}
		if i == 4 {
			r.Status, r.Error = 404, "error status 404 \x1b[31m"
		}
		ld.Requests = append(ld.Requests, r)
	}
	ld.PhaseTotals = map[string]time.Duration{page.PhaseQueued: 30 * ms, page.PhaseTLS: 10 * ms, page.PhaseWait: 20 * ms, page.PhaseDownload: 40 * ms}
	return ld
}

// pageFixture is a page comparison of HTTP/1.1 and HTTP/2 with a
// named difference that is significant and one that is not.
func pageFixture() *page.Result {
	sum := func(med float64) compare.Summary {
		return compare.Summary{N: 10, Median: med, Lo: med - 2, Hi: med + 3, CILevel: 0.979, Min: med - 5, Max: med + 9}
	}
	return &page.Result{
		URL: "https://a.test/page", Rounds: 10, Level: 0.95, Alpha: 0.05, Seed: 1, Stop: "runs", RTT: 40 * time.Millisecond,
		Protocols: []page.ProtocolResult{
			{Protocol: page.HTTP1, LoadTime: sum(120), TTFB: sum(5), Requests: 5, Failed: 1, Conns: 6, Handshakes: 6, HandshakeBytes: 21000, PayloadBytes: 123456, CPU: 3 * time.Millisecond, Median: pageLoad(page.HTTP1, 2)},
			{Protocol: page.HTTP2, LoadTime: sum(60), TTFB: sum(5.5), Requests: 5, Failed: 1, Conns: 1, Handshakes: 1, Resumed: 1, HandshakeBytes: 3500, PayloadBytes: 120000, CPU: 2 * time.Millisecond, Median: pageLoad(page.HTTP2, 1),
				Errors: map[string]int{"protocol mismatch: x": 1}},
		},
		Differences: []page.Difference{
			{Name: "multiplexing", From: page.HTTP1, To: page.HTTP2, Diff: compare.Diff{MS: -60, Lo: -65, Hi: -55, CILevel: 0.95, P: 0.0001, Significant: true}},
			{Name: "h2 → h3", From: page.HTTP2, To: page.HTTP3, Diff: compare.Diff{MS: 1.5, Lo: -2, Hi: 4, CILevel: 0.95, P: 0.4}},
		},
	}
}

// TestPageReportGolden pins the text report: the table, the named
// differences with "~" for a non-significant one, the failed requests
// (escaped) and a waterfall lane per connection.
func TestPageReportGolden(t *testing.T) {
	res := pageFixture()
	var b bytes.Buffer
	if err := Page(&b, res, 30); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") {
		t.Errorf("the report carries an escape character from an error:\n%s", b.String())
	}
	labtest.Golden(t, "page.golden", b.Bytes())
}

// TestPageWaterfallSkipped checks that a load that left out resources
// over its limits says how many, so that its request count does not read
// as the whole page.
func TestPageWaterfallSkipped(t *testing.T) {
	for _, tt := range []struct {
		skipped int
		want    string
	}{
		{0, ""},
		{1, "1 resource the page named was left out"},
		{98001, "98,001 resources the page named were left out"},
	} {
		ld := pageLoad(page.HTTP1, 1)
		ld.Skipped = tt.skipped
		var b bytes.Buffer
		PageWaterfall(&b, ld, 30)
		got := b.String()
		if tt.want == "" && strings.Contains(got, "left out") || !strings.Contains(got, tt.want) {
			t.Errorf("PageWaterfall with %d skipped:\n%s\nwant a line with %q", tt.skipped, got, tt.want)
		}
	}
}

// TestPageModelAndBrowserCPU checks what the report says of the two
// ways the browser's own cost shows: a run with --response-cost (and
// --response-cost-per-mb) names
// the model in its heading and draws each response's processing (p),
// and browser loads give the CPU of the browser's processes, per
// protocol over the load time and in the waterfall by process type.
func TestPageModelAndBrowserCPU(t *testing.T) {
	ms := time.Millisecond
	res := pageFixture()
	res.ResponseCost, res.ResponseCostPerMB, res.ResponseDelay = 3500*time.Microsecond, 40*time.Millisecond, 12*time.Millisecond
	for _, p := range res.Protocols {
		for i := range p.Median.Requests {
			r := &p.Median.Requests[i]
			r.Phases = append(r.Phases, page.Phase{Name: page.PhaseProcess, Start: r.End, Duration: 2 * ms})
		}
		p.Median.PhaseTotals[page.PhaseProcess] = 100 * ms
	}
	var b bytes.Buffer
	if err := Page(&b, res, 30); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"each response ready 12.0 ms after it arrives, then processed\nfor 3.50 ms plus 40.0 ms per MB of its body, one at a time in that order",
		"p processing, . idle)",
		"20% downloading, 50% processing\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("a run with --response-cost:\n%s\nwant %q", b.String(), want)
		}
	}
	if lane := pageLanes(res.Protocols[0].Median, 30)[1]; !bytes.ContainsRune(lane, markProcess) {
		t.Errorf("h1's first lane %q; want its processing marked %q", lane, markProcess)
	}

	res = pageFixture()
	res.Engine = page.EngineChromium
	res.Protocols[1].BrowserCPU = 90 * ms
	res.Protocols[1].Median.Engine = page.EngineChromium
	res.Protocols[1].Median.BrowserCPU = map[string]time.Duration{"renderer": 50 * ms, "network": 30 * ms, "browser": 10 * ms}
	b.Reset()
	if err := Page(&b, res, 30); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"the browser's CPU per load (median, all its processes, over the load time): h2 90.0 ms (1.5 cores)\n",
		"the browser's CPU during the load: 90.0 ms (renderer 50.0, network 30.0, browser 10.0)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("browser loads:\n%s\nwant %q", b.String(), want)
		}
	}
}
