package merge_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/merge"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/transport"
)

// worker runs worker i of n of a 1.5 s bench against the embedded server
// at url, logging every request to log, and returns its --json document.
func worker(t testing.TB, url string, ca []byte, i, n int, log string) []byte {
	t.Helper()
	cfg := load.Config{Targets: []load.Target{{URL: url}}, Conns: 2 * n, Duration: 1500 * time.Millisecond,
		TLS: clientTLS(t, ca), Worker: load.Worker{Index: i, Count: n}, RequestLog: log}
	res, err := load.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("worker %d: %v", i, err)
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, "bench", report.NewBenchJSON(res)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func clientTLS(t testing.TB, caPEM []byte) transport.TLS {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("lab CA: no certificate")
	}
	return transport.TLS{Trust: transport.Trust{RootCAs: pool}}
}

// read reads a bench document back, as httpslab merge does.
func read(t testing.TB, doc []byte) *load.Result {
	t.Helper()
	r, err := report.ReadBench(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("reading a bench document: %v", err)
	}
	return r
}

// logLatencies reads the total latencies (µs, as the histograms round
// them) of a request log's completed requests.
func logLatencies(t *testing.T, path string) []int64 {
	t.Helper()
	var out []int64
	for _, r := range labtest.ReadRequestLog(t, path) {
		if r.Status != "0" {
			out = append(out, r.Micros())
		}
	}
	return out
}

// TestMergeRealRuns merges two real workers' runs, started 300 ms apart
// as workers on two machines would be, through their JSON documents: the
// merged counts are the sums, its percentiles those of every request's
// own latency (from the request logs) within HDR's precision, and its
// seconds add up to its totals, lined up by wall-clock time.
func TestMergeRealRuns(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	dir := t.TempDir()
	logs := []string{filepath.Join(dir, "0.log"), filepath.Join(dir, "1.log")}
	docs := make([][]byte, 2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		docs[0] = worker(t, srv.HTTPSURL+"/", srv.CA.CertPEM, 0, 2, logs[0])
	}()
	time.Sleep(300 * time.Millisecond)
	docs[1] = worker(t, srv.HTTPSURL+"/", srv.CA.CertPEM, 1, 2, logs[1])
	<-done
	a, b := read(t, docs[0]), read(t, docs[1])
	m, err := merge.Merge([]merge.Input{{Name: "0.json", Result: a}, {Name: "1.json", Result: b}})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if m.Requests != a.Requests+b.Requests || m.Errors != 0 || m.Requests == 0 || m.Latency.Total.TotalCount() != m.Requests {
		t.Errorf("merged %d requests (%d in the histogram), %d errors; want %d + %d, none failed",
			m.Requests, m.Latency.Total.TotalCount(), m.Errors, a.Requests, b.Requests)
	}
	var latencies []int64
	for _, l := range logs {
		latencies = append(latencies, logLatencies(t, l)...)
	}
	checkPercentiles(t, m.Latency.Total, latencies)
	if skew := m.Merged.StartSkew; skew < 250*time.Millisecond || skew > 2*time.Second {
		t.Errorf("start skew %v; want about 300ms", skew)
	}
	var sum int64
	for j, iv := range m.Intervals {
		sum += iv.Requests
		if !iv.Start.Equal(m.Start.Add(time.Duration(j) * time.Second)) {
			t.Errorf("merged second %d starts at %v; want %v", j, iv.Start, m.Start.Add(time.Duration(j)*time.Second))
		}
		h, err := load.DecodeHistogram(iv.Latency.Total)
		if err != nil || h.TotalCount() != iv.Requests {
			t.Errorf("merged second %d: %d requests, its histogram %d values (%v)", j, iv.Requests, h.TotalCount(), err)
		}
	}
	if sum != m.Requests || len(m.Intervals) < 2 || !m.Intervals[len(m.Intervals)-1].Partial {
		t.Errorf("the merged seconds hold %d requests in %d seconds (last partial: %v); want %d, at least 2, the last partial",
			sum, len(m.Intervals), len(m.Intervals) > 0 && m.Intervals[len(m.Intervals)-1].Partial, m.Requests)
	}
	var text bytes.Buffer
	if err := report.Bench(&text, m); err != nil || !strings.Contains(text.String(), "Merged:          2 results (the 2 workers of one run)") {
		t.Errorf("the merged report (%v) lacks its Merged line:\n%s", err, text.String())
	}
}

// checkPercentiles compares the merged histogram's percentiles with the
// exact ones of every request's latency.
func checkPercentiles(t *testing.T, merged *hdrhistogram.Histogram, latencies []int64) {
	t.Helper()
	slices.Sort(latencies)
	if int64(len(latencies)) != merged.TotalCount() {
		t.Fatalf("the request logs hold %d completed requests; the merged histogram %d", len(latencies), merged.TotalCount())
	}
	for _, q := range []float64{50, 90, 99, 99.9, 100} {
		rank := min(max(int(q/100*float64(len(latencies))+0.5), 1), len(latencies)) // as hdrhistogram-go ranks
		exact := latencies[rank-1]
		if got := merged.ValueAtQuantile(q); !merged.ValuesAreEquivalent(got, exact) {
			t.Errorf("merged p%g = %d µs; every request's p%g = %d µs (want equal within HDR's precision)", q, got, q, exact)
		}
	}
}

// fake is a result of n requests of latency us each, starting at start,
// as worker i of count (count 0: a run on its own), of configuration hash.
func fake(start time.Time, seconds, perSecond int, us int64, i, count int, hash string) *load.Result {
	r := &load.Result{Config: load.Config{Targets: []load.Target{{URL: "https://127.0.0.1:8443/"}}, Conns: 2},
		Start: start, Elapsed: time.Duration(seconds) * time.Second, Status: map[int]int64{},
		Latency: load.Latency{Connect: load.NewHistogram(), TLS: load.NewHistogram(), Waiting: load.NewHistogram(),
			Total: load.NewHistogram(), Service: load.NewHistogram()},
		Run: load.RunInfo{Host: "host" + strconv.Itoa(i), Worker: load.Worker{Index: i, Count: count}, ConfigHash: hash, ClockSource: "none"}}
	empty := load.EncodeHistogram(load.NewHistogram())
	for s := range seconds {
		h := load.NewHistogram()
		_ = h.RecordValues(us, int64(perSecond))
		_ = r.Latency.Total.RecordValues(us, int64(perSecond))
		_ = r.Latency.Waiting.RecordValues(us, int64(perSecond))
		r.Requests += int64(perSecond)
		r.Status[200] += int64(perSecond)
		r.Intervals = append(r.Intervals, load.Interval{Offset: time.Duration(s) * time.Second, Start: start.Add(time.Duration(s) * time.Second),
			Length: time.Second, Requests: int64(perSecond), Latency: load.IntervalLatency{Connect: empty, TLS: empty,
				Waiting: load.EncodeHistogram(h), Total: load.EncodeHistogram(h)}})
	}
	return r
}

// TestMergeAlignsSecondsByWallClock: workers started 0.3 s and 0.8 s
// after the first have their seconds added to the merged second their
// start is nearest to.
func TestMergeAlignsSecondsByWallClock(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	in := []merge.Input{
		{Name: "a", Result: fake(t0, 3, 100, 1000, 0, 3, "sha256:x")},
		{Name: "b", Result: fake(t0.Add(300*time.Millisecond), 3, 10, 2000, 1, 3, "sha256:x")},
		{Name: "c", Result: fake(t0.Add(800*time.Millisecond), 3, 1, 4000, 2, 3, "sha256:x")},
	}
	m, err := merge.Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	// c's seconds go one later: 800 ms rounds to 1 s.
	want := []int64{110, 111, 111, 1}
	var got []int64
	for _, iv := range m.Intervals {
		got = append(got, iv.Requests)
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged seconds hold %v requests; want %v", got, want)
	}
	if m.Merged.StartSkew != 800*time.Millisecond || m.Elapsed != 3800*time.Millisecond || m.Requests != 333 {
		t.Errorf("skew %v, elapsed %v, %d requests; want 800ms, 3.8s, 333", m.Merged.StartSkew, m.Elapsed, m.Requests)
	}
	last := m.Intervals[3]
	if !last.Partial || last.Length != 800*time.Millisecond {
		t.Errorf("last merged second: partial %v, length %v; want partial, 800ms", last.Partial, last.Length)
	}
	h, err := load.DecodeHistogram(m.Intervals[1].Latency.Total)
	if err != nil || h.TotalCount() != 111 || !h.ValuesAreEquivalent(h.Max(), 4000) {
		t.Errorf("merged second 1: %d values, max %d (%v); want 111, up to 4000 µs", h.TotalCount(), h.Max(), err)
	}
}

// TestMergeClockOffsets: with every host's clock offset known, the starts
// are corrected by it before they are lined up.
func TestMergeClockOffsets(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)
	a, b := fake(t0, 2, 10, 1000, 0, 2, "sha256:x"), fake(t0.Add(900*time.Millisecond), 2, 10, 1000, 1, 2, "sha256:x")
	zero, ahead := time.Duration(0), 850*time.Millisecond // b's clock ran 850 ms ahead
	a.Run.ClockOffset, b.Run.ClockOffset = &zero, &ahead
	m, err := merge.Merge([]merge.Input{{Name: "a", Result: a}, {Name: "b", Result: b}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Merged.ClockCorrected || m.Merged.StartSkew != 50*time.Millisecond || len(m.Intervals) != 2 {
		t.Errorf("corrected %v, skew %v, %d seconds; want true, 50ms, 2", m.Merged.ClockCorrected, m.Merged.StartSkew, len(m.Intervals))
	}
}

// TestMergeRefuses: results of different configurations, a worker given
// twice or missing, workers mixed with runs on their own, and nothing.
func TestMergeRefuses(t *testing.T) {
	t0 := time.Now()
	w := func(i, n int, hash string) *load.Result { return fake(t0, 1, 1, 100, i, n, hash) }
	// other is r as another host ran it.
	other := func(r *load.Result) *load.Result { r.Run.Host = "another"; return r }
	otherURL := w(1, 2, "sha256:x")
	otherURL.Config.Targets[0].URL = "https://127.0.0.1:8443/other"
	for _, tt := range []struct {
		name string
		in   []*load.Result
		want string
	}{
		{"different configurations", []*load.Result{w(0, 2, "sha256:x"), w(1, 2, "sha256:y")}, "are results of different configurations"},
		{"same hash, other target", []*load.Result{w(0, 2, "sha256:x"), otherURL}, "the same config_hash but different settings"},
		{"twice", []*load.Result{w(0, 3, "sha256:x"), w(1, 3, "sha256:x"), other(w(1, 3, "sha256:x"))}, "worker 1 of 3 appears twice"},
		{"same run twice", []*load.Result{w(0, 0, "sha256:x"), w(0, 0, "sha256:x")}, "0 and 1 are the same run (host host0, started at"},
		{"missing", []*load.Result{w(0, 3, "sha256:x"), w(1, 3, "sha256:x")}, "worker 2 of 3 is missing"},
		{"two missing", []*load.Result{w(1, 3, "sha256:x")}, "workers 0, 2 of 3 are missing"},
		{"mixed", []*load.Result{w(0, 2, "sha256:x"), w(0, 0, "sha256:x")}, "is worker 0 of 2, 1 a run on its own"},
		{"other count", []*load.Result{w(0, 2, "sha256:x"), w(1, 3, "sha256:x")}, "is worker 0 of 2, 1 worker 1 of 3"},
		{"no hash", []*load.Result{w(0, 0, "")}, "has no config_hash"},
		{"nothing", nil, "no result to merge"},
	} {
		var in []merge.Input
		for i, r := range tt.in {
			in = append(in, merge.Input{Name: strconv.Itoa(i), Result: r})
		}
		_, err := merge.Merge(in)
		if err == nil || !strings.Contains(err.Error(), tt.want) || merge.Hint(err) == "" {
			t.Errorf("%s: Merge = %v (hint %q); want an error with %q and a hint", tt.name, err, merge.Hint(err), tt.want)
		}
	}
}

// TestMergeReportsDropped: counts whose sum passes int64 are dropped by
// the histogram merge, and the merged result says how many.
func TestMergeReportsDropped(t *testing.T) {
	t0 := time.Now()
	a, b := fake(t0, 1, 1, 100, 0, 0, "sha256:x"), fake(t0.Add(time.Millisecond), 1, 1, 100, 0, 0, "sha256:x")
	_ = a.Latency.Total.RecordValues(500, math.MaxInt64/2)
	_ = b.Latency.Total.RecordValues(700, math.MaxInt64/2)
	m, err := merge.Merge([]merge.Input{{Name: "a", Result: a}, {Name: "b", Result: b}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Merged.Dropped == 0 {
		t.Fatal("merging counts past int64: nothing reported dropped")
	}
	var text bytes.Buffer
	_ = report.Bench(&text, m)
	if !strings.Contains(text.String(), "histogram values dropped") {
		t.Errorf("the report does not say values were dropped:\n%s", text.String())
	}
}

// TestBenchDocumentRoundTrip: a bench document read back and written
// again is the same document, for what merge carries.
func TestBenchDocumentRoundTrip(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	doc := worker(t, srv.HTTPSURL+"/", srv.CA.CertPEM, 0, 1, "")
	var env struct{ Result report.BenchJSON }
	if err := json.Unmarshal(doc, &env); err != nil {
		t.Fatal(err)
	}
	again := report.NewBenchJSON(read(t, doc))
	want := env.Result
	// What a document read back cannot hold again: the CPU's reading of
	// the machine, the saturation judged from it.
	again.CPU, want.CPU = report.BenchCPU{}, report.BenchCPU{}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("read back and written again (-want +got):\n%s", diff)
	}
}

// FuzzMerge reads two bench documents, mutated from real ones (two
// workers of a run and an open-model run on its own, written by bench
// --json against the embedded server, in testdata), and merges them:
// whatever the JSON and its histogram encodings hold, merge never
// panics, never merges results of different configurations, and a merge
// it makes adds their counts up and renders as bench's.
func FuzzMerge(f *testing.F) {
	seed := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	a, b, open := seed("worker-0.json"), seed("worker-1.json"), seed("open.json")
	f.Add(a, b)
	f.Add(a, a)
	f.Add(open, open)
	f.Add(a, open)
	f.Add(b, []byte(strings.Replace(string(b), `"config_hash": "sha256:`, `"config_hash": "sha256:0`, 1)))
	f.Add(a, []byte(strings.Replace(string(b), `"hdr": "HISTF`, `"hdr": "HISTFAAAAB`, 1)))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ra, errA := report.ReadBench(bytes.NewReader(a))
		rb, errB := report.ReadBench(bytes.NewReader(b))
		if errA != nil || errB != nil {
			return
		}
		m, err := merge.Merge([]merge.Input{{Name: "a", Result: ra}, {Name: "b", Result: rb}})
		if err != nil {
			return
		}
		if ra.Run.ConfigHash != rb.Run.ConfigHash {
			t.Fatalf("merged results of configurations %s and %s", ra.Run.ConfigHash, rb.Run.ConfigHash)
		}
		if m.Requests != ra.Requests+rb.Requests || m.Errors != ra.Errors+rb.Errors {
			t.Fatalf("merged %d requests, %d errors of %d+%d, %d+%d", m.Requests, m.Errors, ra.Requests, rb.Requests, ra.Errors, rb.Errors)
		}
		var out bytes.Buffer
		if err := report.Bench(&out, m); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteJSON(&out, "bench", report.NewBenchJSON(m)); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzMergeHistograms puts arbitrary encodings in the place of a real
// worker's histograms, the run's total and its first second's: merge
// refuses what does not decode to bench's histograms, and never panics.
func FuzzMergeHistograms(f *testing.F) {
	a, err := os.ReadFile(filepath.Join("testdata", "worker-0.json"))
	if err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "worker-1.json"))
	if err != nil {
		f.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		f.Fatal(err)
	}
	res := doc["result"].(map[string]any)
	total := res["latency_us"].(map[string]any)["total"].(map[string]any)
	second := res["intervals"].([]any)[0].(map[string]any)["hdr"].(map[string]any)
	f.Add(total["hdr"].(string), second["total"].(string))
	other := hdrhistogram.New(1, 1e12, 5) // another range and precision
	_ = other.RecordValue(1e11)
	enc, _ := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	f.Add(string(enc), second["total"].(string))
	f.Add(total["hdr"].(string), "HISTFAAAACB4nJNpmSzMwMDAxQABzFCaEUTOmeRgDwBDmAMJ")
	ra := read(f, a)
	f.Fuzz(func(t *testing.T, run, sec string) {
		total["hdr"], second["total"] = run, sec
		forged, err := json.Marshal(doc)
		if err != nil {
			return
		}
		rb, err := report.ReadBench(bytes.NewReader(forged))
		if err != nil {
			return
		}
		m, err := merge.Merge([]merge.Input{{Name: "a", Result: ra}, {Name: "b", Result: rb}})
		if err != nil {
			return
		}
		if got, want := m.Latency.Total.TotalCount(), ra.Latency.Total.TotalCount()+rb.Latency.Total.TotalCount(); got > want || got+m.Merged.Dropped < want {
			t.Fatalf("merged total histogram holds %d values and %d dropped; the two hold %d", got, m.Merged.Dropped, want)
		}
	})
}
