package compare

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/httpslab/httpslab/internal/transport"
)

// fixed returns a sampler whose totals are mean plus exponential noise of
// the given scale, from its own seeded generator.
func fixed(seed uint64, mean, noise time.Duration) Sampler {
	r := rand.New(rand.NewPCG(seed, 7))
	var mu sync.Mutex
	return func(context.Context) (Sample, error) {
		mu.Lock()
		defer mu.Unlock()
		d := mean + time.Duration(r.ExpFloat64()*float64(noise))
		return Sample{Total: d, RTT: time.Millisecond, WireBytes: 1000, Phases: map[string]time.Duration{"wait": d}}, nil
	}
}

func twoKeys() (Key, Key) {
	return Key{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}, base
}

func TestRunInterleaves(t *testing.T) {
	var calls []int
	rec := func(i int) Sampler {
		return func(context.Context) (Sample, error) {
			calls = append(calls, i)
			return Sample{Total: time.Duration(i+1) * time.Millisecond}, nil
		}
	}
	keys := DefaultMatrix()[:4]
	var vs []Variant
	for i, k := range keys {
		vs = append(vs, Variant{Key: k, Sampler: rec(i)})
	}
	res, err := Run(context.Background(), Config{Variants: vs, Runs: 30, Warmup: 2, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(calls), 4*(30+2); got != want {
		t.Fatalf("sampler calls = %d; want %d (30 runs and 2 warm-up rounds of 4 variants)", got, want)
	}
	firsts := map[int]bool{}
	for r := 0; r < len(calls)/4; r++ {
		seen := map[int]bool{}
		for _, i := range calls[4*r : 4*r+4] {
			seen[i] = true
		}
		if len(seen) != 4 {
			t.Fatalf("round %d ran %v; want each variant once", r, calls[4*r:4*r+4])
		}
		firsts[calls[4*r]] = true
	}
	if len(firsts) < 3 {
		t.Errorf("variants that ran first in a round: %v; want the order shuffled", firsts)
	}
	for i, v := range res.Variants {
		if len(v.Samples) != 30 {
			t.Errorf("variant %d has %d samples; want 30 (warm-up not recorded)", i, len(v.Samples))
		}
		for j, s := range v.Samples {
			if s.Round != j+1 {
				t.Fatalf("variant %d sample %d is from round %d; want %d", i, j, s.Round, j+1)
			}
		}
	}
	if res.Stop != StopRuns || res.Rounds != 30 {
		t.Errorf("Stop, Rounds = %q, %d; want %q, 30", res.Stop, res.Rounds, StopRuns)
	}
}

// TestIdenticalVariantsFalsePositives compares two variants drawn from
// one distribution many times: "significant" must show up at about the
// chosen alpha, not more.
func TestIdenticalVariantsFalsePositives(t *testing.T) {
	const reps, alpha = 200, 0.05
	a, b := twoKeys()
	sig := 0
	for rep := range reps {
		res, err := Run(context.Background(), Config{
			Variants: []Variant{
				{Key: a, Sampler: fixed(uint64(2*rep+1), 20*time.Millisecond, 5*time.Millisecond)},
				{Key: b, Sampler: fixed(uint64(2*rep+2), 20*time.Millisecond, 5*time.Millisecond)},
			},
			Runs: 20, Warmup: -1, Alpha: alpha, Seed: uint64(rep + 1),
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Variants[1].VsBaseline.Significant {
			sig++
		}
	}
	if got := float64(sig) / reps; got > alpha+0.035 {
		t.Errorf("%d of %d comparisons of identical variants significant (%.3f); want at most %.3f", sig, reps, got, alpha+0.035)
	}
}

func TestRunPrecision(t *testing.T) {
	a, b := twoKeys()
	tests := []struct {
		name     string
		noise    time.Duration
		wantStop string
	}{
		{"tight", 100 * time.Microsecond, StopPrecision},
		{"noisy", 40 * time.Millisecond, StopMaxRuns},
	}
	for _, tt := range tests {
		res, err := Run(context.Background(), Config{
			Variants: []Variant{
				{Key: a, Sampler: fixed(1, 10*time.Millisecond, tt.noise)},
				{Key: b, Sampler: fixed(2, 20*time.Millisecond, tt.noise)},
			},
			Precision: 0.02, MaxRuns: 40, Warmup: -1, Seed: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != tt.wantStop {
			t.Errorf("%s: Stop = %q after %d rounds; want %q", tt.name, res.Stop, res.Rounds, tt.wantStop)
		}
		if tt.wantStop == StopPrecision && res.Rounds != 10 {
			t.Errorf("%s: stopped after %d rounds; want the minimum of 10", tt.name, res.Rounds)
		}
		if tt.wantStop == StopMaxRuns && res.Rounds != 40 {
			t.Errorf("%s: stopped after %d rounds; want the maximum of 40", tt.name, res.Rounds)
		}
	}
}

func TestRunFailures(t *testing.T) {
	a, b := twoKeys()
	bad := func(context.Context) (Sample, error) { return Sample{}, errors.New("connection refused") }
	res, err := Run(context.Background(), Config{
		Variants: []Variant{{Key: a, Sampler: fixed(1, time.Millisecond, 0)}, {Key: b, Sampler: bad}},
		Runs:     10, Seed: 3, Warmup: -1,
	})
	if err != nil {
		t.Fatalf("Run with a failing variant: %v; want the others measured", err)
	}
	v := res.Variants[1]
	if v.Dropped == "" || v.Errors["connection refused"] != 5 || v.VsBaseline != nil {
		t.Errorf("failing variant = dropped %q, errors %v, diff %v; want dropped after 5 errors, no diff", v.Dropped, v.Errors, v.VsBaseline)
	}
	if n := len(res.Variants[0].Samples); n != 10 {
		t.Errorf("baseline has %d samples; want 10", n)
	}
	res, err = Run(context.Background(), Config{Variants: []Variant{{Key: a, Sampler: fixed(1, time.Millisecond, 0)}, {Key: b, Sampler: bad}}, Runs: 10})
	if err != nil || !strings.Contains(res.Variants[1].Dropped, "warm-up") || res.Variants[1].Errors["connection refused"] != 1 {
		t.Errorf("variant failing in the warm-up: err %v, dropped %q, errors %v; want dropped after one attempt", err, res.Variants[1].Dropped, res.Variants[1].Errors)
	}
	_, err = Run(context.Background(), Config{Variants: []Variant{{Key: a, Sampler: bad}, {Key: b, Sampler: fixed(1, time.Millisecond, 0)}}})
	if err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("Run with a failing baseline: err = %v; want an error naming the baseline", err)
	}
}

// TestRunBaselineFailsMidRun checks that a baseline dropped after some
// rounds ends the run with an error and a stop reason the report states.
func TestRunBaselineFailsMidRun(t *testing.T) {
	a, b := twoKeys()
	calls := 0
	flaky := func(context.Context) (Sample, error) {
		if calls++; calls > 4 {
			return Sample{}, errors.New("connection reset")
		}
		return Sample{Total: time.Millisecond}, nil
	}
	res, err := Run(context.Background(), Config{
		Variants: []Variant{{Key: a, Sampler: flaky}, {Key: b, Sampler: fixed(1, time.Millisecond, 0)}},
		Runs:     20, Warmup: -1, Seed: 5,
	})
	if err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("Run = %v; want an error naming the baseline", err)
	}
	if res.Stop != StopBaselineFailed || res.Rounds != 8 || res.Variants[0].Total.N != 4 {
		t.Errorf("Stop, Rounds, baseline n = %q, %d, %d; want %q, 8, 4", res.Stop, res.Rounds, res.Variants[0].Total.N, StopBaselineFailed)
	}
}

// TestRunOrderCountsFailures checks that a sample's position in its round
// counts the failed attempts before it: they took their turn too.
func TestRunOrderCountsFailures(t *testing.T) {
	a, b := twoKeys()
	var turns []int // variant of each attempt, in order
	rec := func(i int, fails bool) Sampler {
		return func(context.Context) (Sample, error) {
			turns = append(turns, i)
			if fails {
				return Sample{}, errors.New("connection refused")
			}
			return Sample{Total: time.Millisecond}, nil
		}
	}
	res, err := Run(context.Background(), Config{
		Variants: []Variant{{Key: a, Sampler: rec(0, false)}, {Key: b, Sampler: rec(1, true)}},
		Runs:     8, Warmup: -1, Seed: 9, MaxFailures: 6,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Rounds 1 to 6 make two attempts each, then only the baseline runs.
	var want []int
	for r, k := 0, 0; r < 8; r++ {
		n := 2
		if r >= 6 {
			n = 1
		}
		want = append(want, slices.Index(turns[k:k+n], 0))
		k += n
	}
	var got []int
	for _, s := range res.Variants[0].Samples {
		got = append(got, s.Order)
	}
	if !slices.Equal(got, want) || !slices.Contains(got, 1) {
		t.Errorf("baseline positions = %v; want %v (attempts %v), with some after the failing variant", got, want, turns)
	}
}

func TestRunInterrupted(t *testing.T) {
	a, b := twoKeys()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	stopper := func(ctx context.Context) (Sample, error) {
		n++
		if n == 7 {
			cancel()
			return Sample{}, ctx.Err()
		}
		return Sample{Total: time.Millisecond}, nil
	}
	res, err := Run(ctx, Config{Variants: []Variant{{Key: a, Sampler: stopper}, {Key: b, Sampler: stopper}}, Runs: 100, Warmup: -1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v; want context.Canceled", err)
	}
	if res == nil || res.Stop != StopInterrupted || res.Variants[0].Total.N+res.Variants[1].Total.N != 6 {
		t.Errorf("partial result = %+v; want the 6 samples taken, stop %q", res, StopInterrupted)
	}
}

func TestMatrix(t *testing.T) {
	names := func(ks []Key) []string {
		var out []string
		for _, k := range ks {
			out = append(out, k.Name())
		}
		return out
	}
	tests := []struct {
		vary []string
		want []string
	}{
		{[]string{"scheme"}, []string{"http h1", "https h1 TLS1.3"}},
		{[]string{"tls"}, []string{"https h1 TLS1.3", "https h1 TLS1.2"}},
		{[]string{"scheme", "tls"}, []string{"http h1", "https h1 TLS1.3", "https h1 TLS1.2"}},
		{[]string{"proto", "handshake"}, []string{"https h1 TLS1.3", "https h1 TLS1.3 resumed", "https h2 TLS1.3", "https h3 TLS1.3",
			"https h2 TLS1.3 resumed", "https h3 TLS1.3 resumed", "https h3 TLS1.3 0-RTT"}},
		{[]string{"conn", "scheme"}, []string{"http h1", "http h1 keep-alive", "https h1 TLS1.3", "https h1 TLS1.3 keep-alive"}},
	}
	for _, tt := range tests {
		got, err := Matrix(tt.vary)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, names(got)); diff != "" {
			t.Errorf("Matrix(%v) mismatch (-want +got):\n%s", tt.vary, diff)
		}
	}
	all, err := Matrix(Dimensions)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range all {
		if !k.valid() {
			t.Errorf("Matrix(all) has invalid %s", k.Name())
		}
	}
	if all[0].Scheme != "http" {
		t.Errorf("Matrix(all)[0] = %s; want plain HTTP as the baseline", all[0].Name())
	}
	for _, bad := range []string{"", "speed", "tls,,nope"} {
		if _, err := ParseVary(bad); err == nil {
			t.Errorf("ParseVary(%q) succeeded; want an error", bad)
		}
	}
	if got, err := ParseVary(" TLS, scheme,tls"); err != nil || !cmp.Equal(got, []string{"tls", "scheme"}) {
		t.Errorf("ParseVary(\" TLS, scheme,tls\") = %v, %v; want [tls scheme]", got, err)
	}
}

// TestFindings runs the default matrix on samplers that cost a known
// number of round trips and checks the generated sentences.
func TestFindings(t *testing.T) {
	const rtt = 40 * time.Millisecond
	rtts := map[string]float64{ // round trips of each default variant
		"http h1": 2, "https h1 TLS1.3": 3, "https h1 TLS1.2": 4, "https h1 TLS1.3 resumed": 3,
		"https h1 TLS1.2 resumed": 3, "https h2 TLS1.3": 3, "https h3 TLS1.3": 2, "https h3 TLS1.3 0-RTT": 1,
		"http h1 keep-alive": 1, "https h1 TLS1.3 keep-alive": 1,
	}
	var vs []Variant
	for i, k := range DefaultMatrix() {
		n, ok := rtts[k.Name()]
		if !ok {
			t.Fatalf("no round trips for %s", k.Name())
		}
		r := rand.New(rand.NewPCG(uint64(i), 1))
		vs = append(vs, Variant{Key: k, Sampler: func(context.Context) (Sample, error) {
			d := time.Duration(n*float64(rtt)) + time.Duration(r.Float64()*float64(time.Millisecond))
			return Sample{Total: d, RTT: rtt}, nil
		}})
	}
	res, err := Run(context.Background(), Config{Variants: vs, Runs: 15, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(res.Findings(), ".\n")
	for _, want := range []string{
		"HTTPS costs +1.0 RTT (+",
		") over HTTP on a fresh connection with TLS 1.3, costs +2.0 RTT (+",
		"HTTPS makes no significant difference (~",
		"resumption makes no significant difference (~",
		"on TLS 1.3, saves 1.0 RTT (",
		"HTTP/2 makes no significant difference",
		"HTTP/3 saves 1.0 RTT",
		"0-RTT saves 1.0 RTT",
		"a kept-alive connection saves 2.0 RTT",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	names := make([]string, 0, len(res.Variants))
	for _, v := range res.Variants {
		names = append(names, v.Name)
	}
	if !slices.Contains(names, "https h3 TLS1.3 0-RTT") || len(res.Effects) == 0 || res.RTT != 40*time.Millisecond {
		t.Errorf("variants %q, %d effects, RTT %v; want the 0-RTT variant, effects and an RTT of 40 ms", names, len(res.Effects), res.RTT)
	}
}

// FuzzParseVary feeds arbitrary --vary values: no panic, and whatever is
// accepted gives a matrix of valid, distinct variants.
func FuzzParseVary(f *testing.F) {
	for _, s := range []string{"scheme,tls", "all", "", ",,", "proto, handshake ,conn", "TLS,tls"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dims, err := ParseVary(s)
		if err != nil {
			return
		}
		keys, err := Matrix(dims)
		if err != nil {
			t.Fatalf("Matrix(%v) after ParseVary(%q): %v", dims, s, err)
		}
		seen := map[Key]bool{}
		for _, k := range keys {
			if !k.valid() || seen[k] {
				t.Fatalf("Matrix(%v) gives invalid or repeated %s", dims, k.Name())
			}
			seen[k] = true
		}
	})
}

// TestAdjustHolm checks that with Holm on, significance follows the
// adjusted p-values: 0.03 and 0.04 are both below alpha 0.05, but Holm
// makes them 2·0.03 = 0.06 and max(0.06, 0.04) = 0.06, both above it.
func TestAdjustHolm(t *testing.T) {
	for _, holm := range []bool{false, true} {
		res := &Result{Alpha: 0.05, Holm: holm}
		family := []*Diff{{P: 0.04, Significant: true}, {P: 0.03, Significant: true}}
		res.adjust(family)
		for i, d := range family {
			if !near(d.PHolm, 0.06) || d.Significant != !holm {
				t.Errorf("holm=%v: diff %d with p %v: p_holm %v, significant %v; want p_holm 0.06, significant %v",
					holm, i, d.P, d.PHolm, d.Significant, !holm)
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
