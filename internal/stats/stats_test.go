package stats

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestQuantile(t *testing.T) {
	s := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		p, want float64
	}{
		{0, 1}, {1, 10}, {0.5, 5.5}, {0.9, 9.1}, {0.25, 3.25}, {-1, 1}, {2, 10},
	}
	for _, tt := range tests {
		if got := Quantile(s, tt.p); !near(got, tt.want, 1e-12) {
			t.Errorf("Quantile(1..10, %v) = %v; want %v", tt.p, got, tt.want)
		}
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(nil, 0.5) = %v; want NaN", got)
	}
	if got := Median([]float64{3, 1, 2}); got != 2 {
		t.Errorf("Median(3,1,2) = %v; want 2", got)
	}
	inf := math.Inf(1)
	infs := []struct {
		s       []float64
		p, want float64
	}{
		{[]float64{1, inf, inf}, 0.5, inf},
		{[]float64{inf, inf, inf}, 0.9, inf},
		{[]float64{-inf, -inf, 3}, 0.25, -inf},
		{[]float64{1, 2, inf}, 0.5, 2},
	}
	for _, tt := range infs {
		if got := Quantile(tt.s, tt.p); got != tt.want {
			t.Errorf("Quantile(%v, %v) = %v; want %v", tt.s, tt.p, got, tt.want)
		}
	}
}

func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(n - i) // unsorted on purpose
		}
		return xs
	}
	// Ranks from the binomial tables for the median (e.g. Conover,
	// Practical Nonparametric Statistics, table A3).
	tests := []struct {
		n            int
		level        float64
		lo, hi       float64
		wantCoverage float64
	}{
		{6, 0.95, 1, 6, 1 - 2.0/64},
		{10, 0.95, 2, 9, 1 - 2*11.0/1024},
		{20, 0.95, 6, 15, 0.9586},
		{10, 0.90, 2, 9, 1 - 2*11.0/1024},
		{10, 0.80, 3, 8, 1 - 2*56.0/1024},
	}
	for _, tt := range tests {
		got := MedianCI(seq(tt.n), tt.level)
		if got.Lo != tt.lo || got.Hi != tt.hi || !near(got.Level, tt.wantCoverage, 1e-4) {
			t.Errorf("MedianCI(1..%d, %v) = %+v; want [%v, %v] at %.4f", tt.n, tt.level, got, tt.lo, tt.hi, tt.wantCoverage)
		}
	}
	if got := MedianCI(seq(5), 0.95); got.Valid() {
		t.Errorf("MedianCI(1..5, 0.95) = %+v; want no interval (n too small)", got)
	}
}

// TestMedianCICoverage checks by simulation that the interval covers the
// true median of a skewed distribution at least as often as promised.
func TestMedianCICoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	trueMedian := math.Ln2 // of Exp(1)
	for _, n := range []int{8, 20, 60} {
		const reps = 2000
		hit := 0
		for range reps {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = r.ExpFloat64()
			}
			if MedianCI(xs, 0.95).Contains(trueMedian) {
				hit++
			}
		}
		if got := float64(hit) / reps; got < 0.94 || got > 0.995 {
			t.Errorf("coverage of MedianCI(n=%d, 0.95) = %.3f; want about 0.95 or above", n, got)
		}
	}
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name      string
		x, y      []float64
		wantU     float64
		wantP     float64
		wantExact bool
	}{
		// SciPy's documentation example (Conover): exact p = 2·7/126.
		{"exact", []float64{19, 22, 16, 29, 24}, []float64{20, 11, 17, 12}, 17, 0.1111111, true},
		{"exact swapped", []float64{20, 11, 17, 12}, []float64{19, 22, 16, 29, 24}, 3, 0.1111111, true},
		// Complete separation, 3 vs 3: p = 2/20.
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, true},
		// Ties: U = 0 + 2·½ + (1 + 2·½) = 3. The pooled ranks are 1, 3,
		// 3, 3, 6, 6, 6, 8 and x's sum is 13; of the C(8,4) = 70 ways to
		// pick x's four, 10 sum to 13 or less: p = 2·10/70.
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 3, 3, 4}, 3, 20.0 / 70, true},
		// Two tied groups of three, fully apart: as in "separated", one
		// arrangement of 20 on each side, p = 0.1. The normal
		// approximation said 0.047, "significant" with 3 runs each.
		{"tied groups", []float64{1, 1, 1}, []float64{2, 2, 2}, 0, 0.1, true},
		{"all tied", []float64{5, 5}, []float64{5, 5, 5}, 3, 1, true},
	}
	for _, tt := range tests {
		got, err := MannWhitney(tt.x, tt.y)
		if err != nil {
			t.Fatalf("%s: MannWhitney: %v", tt.name, err)
		}
		if got.U != tt.wantU || !near(got.P, tt.wantP, 1e-6) || got.Exact != tt.wantExact {
			t.Errorf("%s: MannWhitney(%v, %v) = %+v; want U=%v P=%.7f exact=%v", tt.name, tt.x, tt.y, got, tt.wantU, tt.wantP, tt.wantExact)
		}
	}
}

// TestMannWhitneyTiedExact checks the exact p-value of samples with ties
// against a count of every way to split the pooled sample, on random
// samples of few distinct values (as latencies rounded to a coarse clock).
func TestMannWhitneyTiedExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		x, y := make([]float64, 1+r.IntN(6)), make([]float64, 1+r.IntN(6))
		for i := range x {
			x[i] = float64(r.IntN(4))
		}
		for i := range y {
			y[i] = float64(1 + r.IntN(4))
		}
		got, err := MannWhitney(x, y)
		if err != nil {
			t.Fatal(err)
		}
		if want := splitsP(x, y); !near(got.P, want, 1e-12) || !got.Exact {
			t.Errorf("MannWhitney(%v, %v) = %+v; want P=%v exact", x, y, got, want)
		}
	}
}

// splitsP is the two-sided exact p-value of x's rank sum, by listing
// every subset of the pooled sample that x could have been.
func splitsP(x, y []float64) float64 {
	pooled := append(append([]float64{}, x...), y...)
	rank := func(v float64) float64 { // mean rank of v in the pooled sample
		below, equal := 0, 0
		for _, w := range pooled {
			if w < v {
				below++
			} else if w == v {
				equal++
			}
		}
		return float64(below) + float64(equal+1)/2
	}
	obs := 0.0
	for _, v := range x {
		obs += rank(v)
	}
	var lo, hi, all float64
	for mask := 0; mask < 1<<len(pooled); mask++ {
		if bits.OnesCount(uint(mask)) != len(x) {
			continue
		}
		sum := 0.0
		for i, v := range pooled {
			if mask&(1<<i) != 0 {
				sum += rank(v)
			}
		}
		all++
		if sum <= obs+1e-9 {
			lo++
		}
		if sum >= obs-1e-9 {
			hi++
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)/all)
}

func TestMannWhitneyErrors(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		x, y []float64
		want error
	}{
		{"empty x", nil, []float64{1}, ErrEmpty},
		{"empty y", []float64{1}, nil, ErrEmpty},
		{"NaN in x", []float64{1, nan, 3}, []float64{2}, ErrNaN},
		{"NaN in y", []float64{1}, []float64{nan}, ErrNaN},
	}
	for _, tt := range tests {
		if _, err := MannWhitney(tt.x, tt.y); !errors.Is(err, tt.want) {
			t.Errorf("%s: MannWhitney(%v, %v) error = %v; want %v", tt.name, tt.x, tt.y, err, tt.want)
		}
		if _, err := Compare(tt.y, tt.x, 0.95); !errors.Is(err, tt.want) {
			t.Errorf("%s: Compare(%v, %v) error = %v; want %v", tt.name, tt.y, tt.x, err, tt.want)
		}
	}
	// An infinite value has a rank, so the test stands; the shift, a
	// median of differences that include Inf - Inf, does not.
	inf := math.Inf(1)
	x, y := []float64{1, 2, 3}, []float64{inf, inf, inf}
	if u, err := MannWhitney(x, y); err != nil || !near(u.P, 0.1, 1e-12) {
		t.Errorf("MannWhitney(%v, %v) = %+v, %v; want P=0.1", x, y, u, err)
	}
	if c, err := Compare(x, y, 0.95); !errors.Is(err, ErrInf) {
		t.Errorf("Compare(%v, %v) = %+v, %v; want ErrInf", x, y, c, err)
	}
}

// TestMannWhitneyNormal checks the large-sample path (both samples above
// MaxExact) against the normal approximation worked out by hand.
func TestMannWhitneyNormal(t *testing.T) {
	seq := func(from, step float64, n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = from + step*float64(i)
		}
		return xs
	}
	tests := []struct {
		name  string
		x, y  []float64
		wantU float64
		wantP float64
	}{
		// x = 1..60, y = 8.5..67.5: no ties; x = k beats the k-8 values
		// of y below it, so U = 1+2+...+52 = 1378. mu = 60·60/2 = 1800,
		// sigma² = 60·60·121/12 = 36300, z = (422 - ½)/190.5256 = 2.21230,
		// p = 2·Φ(-z) = erfc(z/√2) = 0.0269459.
		{"no ties", seq(1, 1, 60), seq(8.5, 1, 60), 1378, 0.02694585619564298},
		// x = 1..60, y = 5..64: 56 values tied in pairs, so U = (0+...+55)
		// + 56·½ = 1568 and the tie term is 56·(2³-2) = 336: sigma² =
		// 300·(121 - 336/(120·119)) = 36292.94, z = (232 - ½)/190.5071 =
		// 1.21518, p = erfc(z/√2) = 0.2242982.
		{"ties", seq(1, 1, 60), seq(5, 1, 60), 1568, 0.2242981937176246},
	}
	for _, tt := range tests {
		got, err := MannWhitney(tt.x, tt.y)
		if err != nil {
			t.Fatalf("%s: MannWhitney: %v", tt.name, err)
		}
		if got.U != tt.wantU || !near(got.P, tt.wantP, 1e-9) || got.Exact || got.N1 != 60 || got.N2 != 60 {
			t.Errorf("%s: MannWhitney = %+v; want U=%v P=%.7f exact=false", tt.name, got, tt.wantU, tt.wantP)
		}
	}
}

func TestMinP(t *testing.T) {
	tests := []struct {
		m, n int
		want float64
	}{{3, 3, 0.1}, {4, 4, 2.0 / 70}, {5, 4, 2.0 / 126}, {1, 1, 1}}
	for _, tt := range tests {
		if got := MinP(tt.m, tt.n); !near(got, tt.want, 1e-12) {
			t.Errorf("MinP(%d, %d) = %v; want %v", tt.m, tt.n, got, tt.want)
		}
		x, y := make([]float64, tt.m), make([]float64, tt.n)
		for i := range x {
			x[i] = float64(i)
		}
		for j := range y {
			y[j] = float64(tt.m + j)
		}
		if u, err := MannWhitney(x, y); err != nil || !near(u.P, tt.want, 1e-12) {
			t.Errorf("MannWhitney of %d vs %d separated values: p = %v, %v; want MinP %v", tt.m, tt.n, u.P, err, tt.want)
		}
	}
}

func TestUNullCDFMatchesCounts(t *testing.T) {
	// m=5, n=4: 126 arrangements; counts of U = 0,1,2,3 are 1,1,2,3.
	cdf := uNullCDF(5, 4)
	want := []float64{1, 2, 4, 7}
	for u, c := range want {
		if got := cdf[u] * 126; !near(got, c, 1e-9) {
			t.Errorf("126·P(U ≤ %d) = %v; want %v", u, got, c)
		}
	}
	if got := cdf[len(cdf)-1]; !near(got, 1, 1e-12) {
		t.Errorf("P(U ≤ mn) = %v; want 1", got)
	}
	big := uNullCDF(50, 50)
	if got := big[1250]; got < 0.5 || got > 0.53 {
		t.Errorf("P(U ≤ 1250) for 50x50 = %v; want just above 0.5", got)
	}
}

// TestFalsePositiveRate compares many pairs of samples from one
// distribution: "significant" must come up at about alpha, not more.
func TestFalsePositiveRate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const reps, alpha = 400, 0.05
	for _, n := range []int{10, 30, 80} {
		sig := 0
		for range reps {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = 20 + 5*r.ExpFloat64()
				b[i] = 20 + 5*r.ExpFloat64()
			}
			c, err := Compare(a, b, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if c.Significant(alpha) {
				sig++
			}
		}
		if got := float64(sig) / reps; got > alpha+0.03 {
			t.Errorf("n=%d: %.3f of identical pairs significant; want at most %.2f", n, got, alpha+0.03)
		}
	}
}

// TestFalsePositiveRateTies is TestFalsePositiveRate on latencies read
// from a coarse clock (whole ms: many ties), through the exact tied test
// up to MaxExact and the tie-corrected normal approximation above it:
// "significant" at about alpha, not more, and not far less either (a
// test that never finds anything would pass the first check).
func TestFalsePositiveRateTies(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const reps, alpha = 300, 0.05
	for _, n := range []int{8, 30, 80} {
		sig := 0
		for range reps {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = math.Round(20 + 2*r.ExpFloat64())
				b[i] = math.Round(20 + 2*r.ExpFloat64())
			}
			c, err := Compare(a, b, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if c.Significant(alpha) {
				sig++
			}
		}
		t.Logf("n=%d: %d of %d significant", n, sig, reps)
		if got := float64(sig) / reps; got > alpha+0.03 || got < alpha/5 {
			t.Errorf("n=%d: %.3f of identical pairs with ties significant; want about %.2f", n, got, alpha)
		}
	}
}

// TestShiftCoverage checks by simulation that the shift interval covers a
// known shift between skewed samples, and that the shift is detected.
func TestShiftCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const reps, delta = 1000, 2.0
	for _, n := range []int{12, 40, 70} {
		hit, detected := 0, 0
		for range reps {
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = 10 + 3*r.ExpFloat64()
				b[i] = 10 + delta + 3*r.ExpFloat64()
			}
			c, err := Compare(a, b, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if c.ShiftCI.Contains(delta) {
				hit++
			}
			if c.Significant(0.05) && c.Shift > 0 {
				detected++
			}
		}
		if got := float64(hit) / reps; got < 0.93 || got > 0.985 {
			t.Errorf("n=%d: shift interval coverage %.3f; want about 0.95", n, got)
		}
		if n >= 40 && float64(detected)/reps < 0.8 {
			t.Errorf("n=%d: shift of %.0f detected in %d of %d; want most", n, delta, detected, reps)
		}
	}
}

func TestCompareKnownShift(t *testing.T) {
	c, err := Compare([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if c.Shift != 3 {
		t.Errorf("Compare(1..3, 4..6).Shift = %v; want 3", c.Shift)
	}
	if c.ShiftCI.Valid() {
		t.Errorf("Compare(1..3, 4..6).ShiftCI = %+v; want none at 95%% for 3 vs 3", c.ShiftCI)
	}
}

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !near(got[i], want[i], 1e-12) {
			t.Errorf("Holm(...)[%d] = %v; want %v", i, got[i], want[i])
		}
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3, 6, 7}, 0.95)
	if s.N != 7 || s.Min != 1 || s.Max != 7 || s.Median != 4 || s.Mean != 4 {
		t.Errorf("Summarize(1..7) = %+v; want N=7 min=1 max=7 median=4 mean=4", s)
	}
	if e := Summarize(nil, 0.95); e.N != 0 || !math.IsNaN(e.Median) {
		t.Errorf("Summarize(nil) = %+v; want N=0 and NaN median", e)
	}
}
