package report

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
)

// demoSample is a sample of the loopback demo: every variant's phases
// grow by a few µs per round, so that medians and intervals are known.
func demoSample(k compare.Key, round int) compare.Sample {
	us := func(n int) time.Duration { return time.Duration(n+3*round) * time.Microsecond }
	s := compare.Sample{RTT: 40 * time.Microsecond, CPU: us(500), WireBytes: 900, BodyBytes: 771,
		Phases: map[string]time.Duration{"wait": us(80)}}
	if k.Proto != transport.HTTP3 && k.Conn == "fresh" {
		s.Phases["connect"] = us(60)
	}
	if k.Scheme == "https" {
		s.TLSVersion, s.Group = "TLS 1.3", "X25519MLKEM768"
		s.Resumed, s.EarlyData = k.Handshake != "full", k.Handshake == "0rtt"
		if k.Conn == "fresh" {
			s.Phases["tls"] = us(map[bool]int{true: 700, false: 1100}[s.Resumed])
			s.HandshakeBytes = int64(map[bool]int{true: 3168, false: 3462}[s.Resumed])
		}
	}
	for _, d := range s.Phases {
		s.Total += d
	}
	return s
}

// demoComparison runs compare's engine over fixed samples of the demo's
// variants, with the error of a failed one.
func demoComparison(t *testing.T, failed map[string]error) *compare.Result {
	t.Helper()
	var vs []compare.Variant
	for _, v := range demo.Variants {
		round := 0
		vs = append(vs, compare.Variant{Key: v.Key, Name: v.Name, Sampler: func(context.Context) (compare.Sample, error) {
			if err := failed[v.Name]; err != nil && round > 2 {
				return compare.Sample{}, err
			}
			round++
			return demoSample(v.Key, round), nil
		}})
	}
	res, err := compare.Run(context.Background(), compare.Config{Variants: vs, Runs: 7, Seed: 1, MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func demoResult(cmp *compare.Result) *demo.Result {
	return &demo.Result{
		Server: "the embedded server on loopback", URL: "https://127.0.0.1:8443/", HTTPURL: "http://127.0.0.1:8080/",
		Comparison: cmp,
		Load: []demo.Load{
			{Name: demo.KeepAlive, Requests: 31888, RequestRate: 31888, HandshakeRate: 4, Handshakes: 4, P50: 82 * time.Microsecond, P99: 1172 * time.Microsecond},
			{Name: "new connection, full handshake", Requests: 1008, RequestRate: 1008, HandshakeRate: 1008, Handshakes: 1008, P50: 2619 * time.Microsecond, P99: 20495 * time.Microsecond},
			{Name: "new connection, resumed", Err: "connection refused"},
		},
		Page:     demoPage(),
		LoadTime: time.Second, LoadConns: 4,
		Audit: &tlsscan.Report{Elapsed: 170 * time.Millisecond, Findings: []tlsscan.Finding{
			{ID: "compression-off", Severity: tlsscan.Low, Category: tlsscan.Speed, Title: "text is sent uncompressed"},
			{ID: "early-data", Severity: tlsscan.Info, Category: tlsscan.About, Title: "0-RTT early data is accepted"},
		}},
	}
}

// demoPage is the demo's page loads over HTTP/1.1 and HTTP/2.
func demoPage() *page.Result {
	sum := func(med float64) compare.Summary {
		return compare.Summary{N: 2, Median: med, Min: med - 1, Max: med + 1}
	}
	return &page.Result{
		URL: "https://127.0.0.1:8443" + demo.PagePath, Rounds: 2, Level: 0.95, Alpha: 0.05,
		Protocols: []page.ProtocolResult{
			{Protocol: page.HTTP1, LoadTime: sum(12), TTFB: sum(2.5), Requests: 5, Conns: 2, Handshakes: 2, HandshakeBytes: 7000, PayloadBytes: 90000, CPU: 3 * time.Millisecond, Median: pageLoad(page.HTTP1, 2)},
			{Protocol: page.HTTP2, LoadTime: sum(6), TTFB: sum(1.5), Requests: 5, Conns: 1, Handshakes: 1, HandshakeBytes: 3500, PayloadBytes: 89000, CPU: 2 * time.Millisecond, Median: pageLoad(page.HTTP2, 1)},
		},
		Differences: []page.Difference{{Name: "multiplexing", From: page.HTTP1, To: page.HTTP2, Diff: compare.Diff{MS: -6, Lo: -8, Hi: -4, CILevel: 0.95, P: 0.33}}},
	}
}

// TestWriteDemo: the loopback report in full, with a variant that failed
// after some rounds and a failed load run.
func TestWriteDemo(t *testing.T) {
	cmp := demoComparison(t, map[string]error{"HTTP/3 resumed": errors.New("the server did not resume the TLS session")})
	var b bytes.Buffer
	if err := WriteDemo(&b, demoResult(cmp)); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "demo.golden", b.Bytes())
}

// TestWriteDemoBehindLink: behind a link the report is compare's, under
// a line that says where the server ran.
func TestWriteDemoBehindLink(t *testing.T) {
	res := demoResult(demoComparison(t, nil))
	res.BehindLink, res.Server = true, "the embedded server behind an emulated link (rtt 50ms)"
	var b bytes.Buffer
	if err := WriteDemo(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	first := "httpslab demo: the embedded server behind an emulated link (rtt 50ms), https://127.0.0.1:8443/\nplain HTTP from http://127.0.0.1:8080/\n"
	if !strings.HasPrefix(out, first) || !strings.Contains(out, "summary:") || strings.Contains(out, "load:") || strings.Contains(out, "audit of") ||
		!strings.Contains(out, "page "+demo.PagePath+" over HTTP/1.1 and HTTP/2") || !strings.Contains(out, "median load over h2") {
		t.Errorf("WriteDemo behind a link:\n%s\nwant %q first, compare's report, the page loads, no load or audit", out, first)
	}
}

// TestWriteDemoPageFailed: page loads that failed before any measure
// are a line with the error, escaped.
func TestWriteDemoPageFailed(t *testing.T) {
	res := demoResult(demoComparison(t, nil))
	res.Page, res.PageErr = nil, "the document failed: \x1b[31mrefused"
	var b bytes.Buffer
	if err := WriteDemo(&b, res); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "over HTTP/1.1 and HTTP/2 ('httpslab page' for more)\nfailed: the document failed: ") || strings.Contains(out, "\x1b") {
		t.Errorf("WriteDemo with failed page loads:\n%s\nwant the error, escaped", out)
	}
}
