package report

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/httpslab/httpslab/internal/experiment"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/stats"
)

// experimentFixture is an experiment of three variants over 10 blocks:
// one verified with a clear effect, one that nginx refused, one obsolete.
func experimentFixture() *experiment.Result {
	sample := func(rps, cpu float64) *experiment.Sample {
		return &experiment.Sample{Values: map[string]float64{"requests/s": rps, "server CPU/request": cpu}, Requests: 1000,
			Noise: &experiment.Noise{OtherCores: rps / 2000, StealShare: 0.001}}
	}
	base := experiment.VariantResult{Name: "ssl_session_tickets off", Baseline: true, Status: experiment.Base, Evidence: "the reference",
		Settings: []experiment.Change{{Directive: "ssl_session_tickets", Value: "off"}}, Edits: []int{0}}
	on := experiment.VariantResult{Name: "ssl_session_tickets on", Status: experiment.Verified, Evidence: "resumed: no → yes",
		Changes: []experiment.Change{{Directive: "ssl_session_tickets", Value: "on"}}}
	for b := range 10 {
		base.Samples = append(base.Samples, sample(1000+float64(b), 0))
		on.Samples = append(on.Samples, sample(1500+float64(b), 0))
		base.BlockErrors = append(base.BlockErrors, "")
		on.BlockErrors = append(on.BlockErrors, "")
	}
	r := &experiment.Result{
		Command: "bench --conn resume -d 3s https://localhost:8443/",
		Metrics: []experiment.Metric{{Name: "requests/s", Unit: "/s", HigherIsBetter: true}, {Name: "server CPU/request", Unit: "µs"}},
		Variants: []experiment.VariantResult{base, on,
			{Name: "ssl_session_tickets maybe", Status: experiment.Failed,
				Evidence: `[emerg] invalid value "maybe" in "ssl_session_tickets" directive, it must be "on" or "off" in nginx.conf:3`},
			{Name: "http2_max_requests 10", Status: experiment.Obsolete,
				Evidence: `[warn] the "http2_max_requests" directive is obsolete, use the "keepalive_requests" directive instead in nginx.conf:4`}},
		Blocks: 10, Seed: 42, Start: time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC), Elapsed: time.Minute,
		Env: experiment.Environment{NginxVersion: "nginx version: nginx/1.22.1\nbuilt with OpenSSL 3.0.2", OpenSSL: "OpenSSL 3.0.2",
			Kernel: "6.1.0", CPUModel: "AMD EPYC", CPUs: 2, TCPMetrics: "flushed between variants"},
	}
	for range 10 {
		r.Order = append(r.Order, []int{1, 0})
	}
	r.Analysis = experiment.Analyze(r, 0.05, 0.05)
	return r
}

func TestExperimentText(t *testing.T) {
	var b bytes.Buffer
	if err := Experiment(&b, experimentFixture()); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "experiment.golden", b.Bytes())
}

// TestExperimentTextUnreachable checks the warning when the design cannot
// reach significance, and the "~" of a change that is not significant.
func TestExperimentTextUnreachable(t *testing.T) {
	r := experimentFixture()
	r.Order = r.Order[:3]
	for i := range r.Variants[:2] {
		r.Variants[i].Samples = r.Variants[i].Samples[:3]
	}
	r.Analysis = experiment.Analyze(r, 0.05, 0.05)
	var b bytes.Buffer
	if err := Experiment(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1,501/s   ~ ",
		"warning: too noisy to rule out a change of ±5% in 1 of the ~ verdicts (more blocks or longer runs narrow the intervals): ssl_session_tickets on requests/s;", "warning: with 3 blocks no change can be significant (2 × 0.25 ≥ 0.05); it takes 7 blocks (-n 7)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// shareFixture is the experiment fixture with a share (resumed
// handshakes, in %), 0 in the baseline and 95 or 96 in the variant.
func shareFixture() *experiment.Result {
	r := experimentFixture()
	r.Metrics = append(r.Metrics, experiment.Metric{Name: "resumed handshakes", Unit: "%", HigherIsBetter: true})
	for b := range r.Order {
		r.Variants[0].Samples[b].Values["resumed handshakes"] = 0
		r.Variants[1].Samples[b] = &experiment.Sample{Values: map[string]float64{"requests/s": 1500 + float64(b),
			"server CPU/request": 0, "resumed handshakes": 95 + float64(b%2)}, Requests: 1000}
	}
	r.Analysis = experiment.Analyze(r, 0.05, 0.05)
	return r
}

// TestExperimentTextShare checks a share (resumed handshakes, in %): its
// values as percentages, and its change, from 0 in the baseline, in
// percentage points.
func TestExperimentTextShare(t *testing.T) {
	r := shareFixture()
	var b bytes.Buffer
	if err := Experiment(&b, r); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`ssl_session_tickets on +resumed handshakes +0\.0% +95\.5% +\+95\.5 pp +\+95\.0 pp to \+96\.0 pp `)
	if !want.MatchString(b.String()) {
		t.Errorf("report lacks the share's line %q:\n%s", want, b.String())
	}
}

// TestExperimentTextCorrected checks the note on a ~ whose own interval
// leaves out no change: significant alone, not after Holm's correction.
func TestExperimentTextCorrected(t *testing.T) {
	r := experimentFixture()
	r.Analysis.Verdicts[0].Significant = false
	r.Analysis.Verdicts[0].P, r.Analysis.Verdicts[0].PHolm = 0.016, 0.082
	var b bytes.Buffer
	if err := Experiment(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "note: each of these ~ leaves out no change in its own interval, but is not significant after Holm's correction over 1 comparison: " +
		"ssl_session_tickets on requests/s (p 0.016 alone, 0.082 after);\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
	// The fixture as it is: the significant verdict needs no note, nor
	// the ~ whose interval is +0 to +0.
	b.Reset()
	if err := Experiment(&b, experimentFixture()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "note:") {
		t.Errorf("report notes a verdict it should not:\n%s", b.String())
	}
}

// TestQuantity checks the values of the verdict table: a slow rate keeps
// three significant digits, a fast one its whole number.
func TestQuantity(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		unit string
		want string
	}{
		{5.954, "/s", "5.95/s"},
		{0.5, "/s", "0.5/s"},
		{99.94, "/s", "99.9/s"},
		{1504.6, "/s", "1,505/s"},
		{104043, "B", "104,043 B"},
		{96.45, "%", "96.5%"},
		{21.6874, "ms", "21.687 ms"},
		{math.NaN(), "/s", "-"},
	} {
		if got := quantity(tc.x, tc.unit); got != tc.want {
			t.Errorf("quantity(%v, %q) = %q; want %q", tc.x, tc.unit, got, tc.want)
		}
	}
}

// TestExperimentJSON checks that values JSON cannot hold (a NaN
// coefficient of variation) come out as null and the samples are there.
func TestExperimentJSON(t *testing.T) {
	r := experimentFixture()
	var b bytes.Buffer
	if err := WriteJSON(&b, "experiment", ExperimentResultJSON(r)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema string `json:"schema"`
		Result struct {
			Variants []struct {
				Samples []*experiment.Sample `json:"samples"`
			} `json:"variants"`
			Analysis struct {
				Verdicts []struct {
					Metric string   `json:"metric"`
					CV     *float64 `json:"cv"`
				} `json:"verdicts"`
			} `json:"analysis"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != "httpslab/experiment/v1" || len(got.Result.Variants[1].Samples) != 10 {
		t.Errorf("schema %q, %d samples; want httpslab/experiment/v1 and 10", got.Schema, len(got.Result.Variants[1].Samples))
	}
	if cv := stats.CV([]float64{0, 0}); !math.IsNaN(cv) {
		t.Fatalf("CV of zeros = %v; the test needs NaN", cv)
	}
	for _, v := range got.Result.Analysis.Verdicts {
		if v.Metric == "server CPU/request" && v.CV != nil {
			t.Errorf("CV of all-zero CPU = %v; want null", *v.CV)
		}
	}
}

// TestSignedChange checks that a change below one percent keeps two
// significant digits instead of showing as "-0.0%".
func TestSignedChange(t *testing.T) {
	for _, tc := range []struct {
		shift float64
		ratio bool
		want  string
	}{
		{0.123, true, "+12.3%"},
		{-0.0004, true, "-0.040%"},
		{-0.0031, true, "-0.31%"},
		{0.0096, true, "+1.0%"},
		{-0.00045, true, "-0.045%"},
		{0.0000012, true, "+0.00012%"},
		{0, true, "+0.0%"},
		{-1.5, false, "-1.5 ms"},
	} {
		if got := signedChange(tc.shift, tc.ratio, "ms"); got != tc.want {
			t.Errorf("signedChange(%v, %v) = %q; want %q", tc.shift, tc.ratio, got, tc.want)
		}
	}
}

// TestExperimentHTMLShare checks the HTML of a share's change: in
// percentage points in the table, the tooltips and the chart's axis,
// where the text report has them too.
func TestExperimentHTMLShare(t *testing.T) {
	r := shareFixture()
	exp := ExperimentResultJSON(r)
	var b bytes.Buffer
	in := []HTMLInput{{Label: "experiment.json", Doc: &Document{Kind: "experiment", Schema: SchemaName("experiment"), Version: Version, Result: &exp}}}
	if err := WriteHTML(&b, in); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{`<td class="text">&#43;95.5 pp</td><td class="text">&#43;95.0 pp</td><td class="text">&#43;96.0 pp</td>`,
		"resumed handshakes: &#43;95.5 pp</title>"} {
		if !strings.Contains(html, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	chart := html[strings.Index(html, "Change in resumed handshakes"):]
	chart = chart[:strings.Index(chart, "</svg>")]
	if !strings.Contains(chart, `class="axis-title">pp</text>`) {
		t.Errorf("the share's chart does not give its axis in pp:\n%s", chart)
	}
}

// TestExperimentTextLongNames checks that a long variant name (a cipher
// list) is given once, in the variant table, and the verdict rows name
// the variant by its number there.
func TestExperimentTextLongNames(t *testing.T) {
	r := experimentFixture()
	long := "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305"
	r.Variants[1].Name = long
	var b bytes.Buffer
	if err := Experiment(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, long); n != 1 {
		t.Errorf("the long name appears %d times; want once, in the variant table:\n%s", n, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^# +status +variant, evidence$`),
		regexp.MustCompile(`(?m)^#0 +baseline +ssl_session_tickets off\n +the reference$`),
		regexp.MustCompile(`(?m)^#1 +verified +` + regexp.QuoteMeta(long) + `\n +resumed: no → yes$`),
		regexp.MustCompile(`(?m)^variants by their # above`),
		regexp.MustCompile(`(?m)^#1 +requests/s +`),
	} {
		if !want.MatchString(out) {
			t.Errorf("report lacks %v:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "#1 ") && strings.Contains(line, "requests/s") && utf8.RuneCountInString(line) > 100 {
			t.Errorf("verdict row of %d characters: %q", utf8.RuneCountInString(line), line)
		}
	}
}
