package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
)

// TestHTMLGolden renders the fixed bench result (open model, with two
// --fail-if thresholds, one tripped), comparison and experiment of the
// text reports' golden tests as HTML (with -update to regenerate), and
// the bench result again as a 6-second run with errors in its fourth
// second, overlaid with the first: the SVG of the spectrum, the
// histogram, the lines over time, the interval charts and the per-round
// scatters, and their tables.
func TestHTMLGolden(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v0.0.0-test"
	created := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var ths []load.Threshold
	for _, c := range []string{"p99>5ms", "errors>5"} {
		th, err := load.ParseThreshold(c)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	bench := NewBenchJSON(sampleBench(), ths...)
	exp := ExperimentResultJSON(experimentFixture())
	cmp := NewCompareJSON(goldenComparison(t), "https://127.0.0.1:8443/", "https://127.0.0.1:8443/", "http://127.0.0.1:8080/")
	timed := bench
	timed.Intervals = nil
	for k := range int64(6) {
		l := bench.Latency
		iv := BenchInterval{OffsetSeconds: k, Start: created.Add(time.Duration(k) * time.Second), LengthSeconds: 1, Requests: 90 + 5*k,
			HDR: BenchIntervalHDR{Connect: l["connect"].HDR, TLS: l["tls"].HDR, Waiting: l["waiting"].HDR, Total: l["total"].HDR, Service: l["service"].HDR}}
		if k == 3 {
			iv.Errors, iv.HDR.Total = 7, l["service"].HDR
		}
		timed.Intervals = append(timed.Intervals, iv)
	}
	in := []HTMLInput{
		{Label: "bench.json", Doc: &Document{Kind: "bench", Schema: SchemaName("bench"), Version: Version, Created: created, Result: &bench}},
		{Label: "timed.json", Doc: &Document{Kind: "bench", Schema: SchemaName("bench"), Version: Version, Created: created, Result: &timed}},
		{Label: "compare.json", Doc: &Document{Kind: "compare", Schema: SchemaName("compare"), Version: Version, Created: created, Result: &cmp}},
		{Label: "experiment.json", Doc: &Document{Kind: "experiment", Schema: SchemaName("experiment"), Version: Version, Created: created, Result: &exp}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, in); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "report.html.golden", b.Bytes())
}

// TestHTMLGoldenPageOverlay renders two page results, the page fixture
// and a copy 40 ms slower over HTTP/1.1 and 15 ms faster over HTTP/2, as
// HTML (with -update to regenerate): the chart of both results' medians
// grouped by protocol, one colour each, its table, and each result's own
// section as before.
func TestHTMLGoldenPageOverlay(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v0.0.0-test"
	created := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	base, shifted := pageFixture(), pageFixture()
	for i, d := range []float64{40, -15} {
		s := &shifted.Protocols[i].LoadTime
		s.Median, s.Lo, s.Hi, s.Min, s.Max = s.Median+d, s.Lo+d, s.Hi+d, s.Min+d, s.Max+d
	}
	in := []HTMLInput{
		{Label: "before.json", Doc: &Document{Kind: "page", Schema: SchemaName("page"), Version: Version, Created: created, Result: base}},
		{Label: "after", Doc: &Document{Kind: "page", Schema: SchemaName("page"), Version: Version, Created: created, Result: shifted}},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, in); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"page: 2 results overlaid", "Median page load per protocol and result", `<li class="s1"><span>after</span></li>`,
		`<th scope="row">after</th><td class="text">h1</td><td>10</td><td>160</td><td>158</td><td>163</td>`} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("the report of two page results has no %q", want)
		}
	}
	labtest.Golden(t, "report-page-overlay.html.golden", b.Bytes())
}
