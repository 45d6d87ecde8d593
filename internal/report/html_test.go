package report_test

// Tests of the HTML report on real results: every kind renders, the page
// can load nothing, strings from a result are escaped, the tables hold
// the numbers the results hold, and the size follows the work's shape.

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/report"
)

// readDoc reads one --json document, failing the test when it cannot.
func readDoc(t *testing.T, doc []byte) *report.Document {
	t.Helper()
	d, err := report.Read(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("Read: %v\n%s", err, doc)
	}
	return d
}

// renderHTML renders the documents under the labels.
func renderHTML(t *testing.T, labels []string, docs ...*report.Document) string {
	t.Helper()
	var in []report.HTMLInput
	for i, d := range docs {
		in = append(in, report.HTMLInput{Label: labels[i], Doc: d})
	}
	var b bytes.Buffer
	if err := report.WriteHTML(&b, in); err != nil {
		t.Fatalf("WriteHTML: %v", err)
	}
	return b.String()
}

// networkRef matches an attribute that would make a browser fetch.
var networkRef = regexp.MustCompile(`(?i)\b(src|href|action|srcset|poster|data)\s*=\s*["']?\s*(https?:)?//`)

// policyMeta and styleElem find the page's policy and its one style.
var (
	policyMeta = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
	styleElem  = regexp.MustCompile(`(?s)<style>(.*?)</style>`)
)

// checkPolicy checks the page's Content-Security-Policy: nothing may
// load, and the one style is allowed by the SHA-256 of its exact text,
// never by 'unsafe-inline'.
func checkPolicy(t *testing.T, name, page string) {
	t.Helper()
	m := policyMeta.FindStringSubmatch(page)
	styles := styleElem.FindAllStringSubmatch(page, -1)
	if m == nil || len(styles) != 1 {
		t.Errorf("%s: %d policies, %d style elements; want one of each", name, len(m)/2, len(styles))
		return
	}
	sum := sha256.Sum256([]byte(styles[0][1]))
	want := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
	if got := html.UnescapeString(m[1]); got != want {
		t.Errorf("%s: Content-Security-Policy %q; want %q (the hash of the page's style)", name, got, want)
	}
}

// checkOffline checks what keeps a report from loading anything: the
// policy that forbids it, no script, no reference to fetch.
func checkOffline(t *testing.T, name, page string) {
	t.Helper()
	checkPolicy(t, name, page)
	if strings.Contains(strings.ToLower(page), "<script") {
		t.Errorf("%s: the report holds a script element", name)
	}
	if m := networkRef.FindString(page); m != "" {
		t.Errorf("%s: the report refers to the network: %q", name, m)
	}
	for _, tag := range []string{"<link", "<img", "<iframe", "<object", "@import", "url(", " style="} {
		if strings.Contains(page, tag) {
			t.Errorf("%s: the report holds %q", name, tag)
		}
	}
}

// TestHTMLEscapes puts markup into the strings a result carries (the
// URL and the label) and checks that none of it reaches the page as
// markup.
func TestHTMLEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>"'=cmd|' /C calc'!A0`
	var b bytes.Buffer
	pj := map[string]any{"url": "https://x/" + evil, "runs": []any{}}
	if err := report.WriteJSON(&b, "probe", pj); err != nil {
		t.Fatal(err)
	}
	page := renderHTML(t, []string{evil}, readDoc(t, b.Bytes()))
	checkOffline(t, "escapes", page)
	for _, raw := range []string{"<script>", "<img", `"'=cmd`} {
		if strings.Contains(page, raw) {
			t.Errorf("the report holds %q unescaped", raw)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the report does not show the escaped URL")
	}
}

// syntheticBench returns a bench document whose total latency histogram
// holds seconds×rate requests drawn from one distribution, with its
// p50 to p99.99 from HDR for the expected table.
func syntheticBench(t *testing.T, seconds, rate int) ([]byte, *hdrhistogram.Histogram) {
	t.Helper()
	h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	rnd := rand.New(rand.NewPCG(1, uint64(seconds)))
	for range seconds * rate {
		// Log-normal around 2 ms with a long tail.
		_ = h.RecordValue(int64(2000 * (1 + rnd.ExpFloat64()*rnd.ExpFloat64())))
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	hist := report.BenchHist{Count: h.TotalCount(), Min: h.Min(), Mean: h.Mean(), StdDev: h.StdDev(), Max: h.Max(),
		Percentiles: map[string]int64{}, HDR: string(enc)}
	empty := report.BenchHist{Percentiles: map[string]int64{}}
	j := report.BenchJSON{Target: []string{"https://127.0.0.1:8443/"}, Protocol: "HTTP/1.1", Conns: 4, Streams: 1, Mode: "keepalive",
		ElapsedSeconds: float64(seconds), Requests: h.TotalCount(), RequestsPerSec: float64(rate),
		Status: map[string]int64{"200": h.TotalCount()}, ErrorMessages: map[string]int64{}, TLS: []report.BenchTLS{},
		Latency:   map[string]report.BenchHist{"total": hist, "waiting": hist, "connect": empty, "tls": empty},
		Run:       report.BenchRun{StartedAt: time.Unix(0, 0).UTC(), Host: "a", ClockSource: "none", ConfigHash: "sha256:" + strings.Repeat("0", 64)},
		Intervals: []report.BenchInterval{}}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, "bench", j); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), h
}

// tableMS returns the first number of the table row headed row.
func tableMS(t *testing.T, page, row string) float64 {
	t.Helper()
	m := regexp.MustCompile(`<th scope="row">` + regexp.QuoteMeta(row) + `</th><td[^>]*>([0-9.]+)</td>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no table row %q", row)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHTMLSizeFollowsShape checks that a 60-second bench gives a report
// of about the size of a 2-second one (drawn from histograms, not from
// samples), and that its spectrum table holds HDR's percentiles.
func TestHTMLSizeFollowsShape(t *testing.T) {
	short, _ := syntheticBench(t, 2, 5000)
	long, h := syntheticBench(t, 60, 5000)
	a := renderHTML(t, []string{"short"}, readDoc(t, short))
	b := renderHTML(t, []string{"long"}, readDoc(t, long))
	t.Logf("report of a 2 s bench: %d bytes; of a 60 s bench: %d bytes (documents %d and %d bytes)", len(a), len(b), len(short), len(long))
	if d := float64(len(b)-len(a)) / float64(len(a)); d > 0.05 || d < -0.05 {
		t.Errorf("report sizes %d (2 s) and %d (60 s) differ by %.1f%%; want within 5%%", len(a), len(b), 100*d)
	}
	if len(b) > 64<<10 {
		t.Errorf("report of one bench result is %d bytes; want under 64 KiB", len(b))
	}
	for _, p := range []float64{50, 99, 99.9, 99.99} {
		want := float64(h.ValueAtPercentile(p)) / 1000
		if got := tableMS(t, b, fmt.Sprintf("p%g", p)); math.Abs(got-want) > want*0.005 {
			t.Errorf("spectrum table: p%g = %g ms; want %g (HDR)", p, got, want)
		}
	}
}

// surveyURLs writes a --urls file of three of the embedded server's pages.
func surveyURLs(t *testing.T, base string) string {
	t.Helper()
	urls := filepath.Join(t.TempDir(), "urls.txt")
	list := base + "/page/images?n=5&size=1000\n" + base + "/page/images?n=12&size=3000\n" + base + "/page/styled\n"
	if err := os.WriteFile(urls, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	return urls
}
