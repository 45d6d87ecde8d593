package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSignedRankKnown(t *testing.T) {
	for _, tc := range []struct {
		d     []float64
		wPlus float64
		p     float64
	}{
		// All ten of one sign: the smallest p ten blocks can give.
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 55, 2.0 / 1024},
		{[]float64{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10}, 0, 2.0 / 1024},
		// n = 5, W+ = 14 of 15: P(W+ ≥ 14) = 2/32, two-sided 4/32.
		{[]float64{-1, 2, 3, 4, 5}, 14, 4.0 / 32},
		// Ties in |d| and a zero dropped: ranks 1.5, 1.5, 3; W+ = 4.5,
		// reached or passed by 3 of the 8 sign patterns: p = 2·3/8.
		{[]float64{0, 1, -1, 2}, 4.5, 0.75},
		{[]float64{0, 0, 0}, 0, 1},
	} {
		got, err := SignedRank(tc.d)
		if err != nil || got.WPlus != tc.wPlus || math.Abs(got.P-tc.p) > 1e-12 || !got.Exact {
			t.Errorf("SignedRank(%v) = %+v, %v; want W+ %v, p %v", tc.d, got, err, tc.wPlus, tc.p)
		}
	}
	if _, err := SignedRank(nil); err == nil {
		t.Error("SignedRank(nil): want an error")
	}
	if _, err := SignedRank([]float64{1, math.NaN()}); err == nil {
		t.Error("SignedRank with NaN: want an error")
	}
}

// TestSignedRankNormalAgrees checks that the normal approximation, used
// above MaxExact, is close to the exact p-value where both exist.
func TestSignedRankNormalAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		d := make([]float64, 40)
		for i := range d {
			d[i] = r.NormFloat64() + 0.3
		}
		ranks, pos := absRanks(d)
		var w float64
		for i, rk := range ranks {
			if pos[i] {
				w += rk
			}
		}
		exact, approx := exactSignedP(ranks, w), normalSignedP(ranks, w)
		if math.Abs(exact-approx) > 0.01 {
			t.Errorf("n = 40: exact p %.4f, normal %.4f", exact, approx)
		}
	}
}

func TestSignedRankMinPAndBlocksNeeded(t *testing.T) {
	if got := SignedRankMinP(10); math.Abs(got-0.001953125) > 1e-12 {
		t.Errorf("SignedRankMinP(10) = %v; want 2/1024", got)
	}
	// 10 blocks reach 0.00195: a family of 25 tests can (25·0.00195 =
	// 0.049), one of 26 cannot and needs 11 blocks.
	for _, tc := range []struct{ family, want int }{{1, 6}, {25, 10}, {26, 11}, {100, 12}} {
		if got := BlocksNeeded(tc.family, 0.05); got != tc.want {
			t.Errorf("BlocksNeeded(%d, 0.05) = %d; want %d", tc.family, got, tc.want)
		}
	}
}

// simulate runs fn on paired samples of n blocks: a block effect shared
// by both sides (large, as machines drift), noise and the given shift.
func simulate(r *rand.Rand, n int, shift float64) (base, x []float64) {
	for range n {
		block := 10 * r.NormFloat64()
		base = append(base, 100+block+r.NormFloat64())
		x = append(x, 100+block+shift+r.NormFloat64())
	}
	return base, x
}

// TestComparePairedSimulated checks by simulation the false-positive
// rate under no effect, the interval's coverage, and the power against a
// shift of one noise standard deviation, with block effects ten times
// the noise that a two-sample test would drown in.
func TestComparePairedSimulated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const sims = 2000
	var falsePos, covered, found int
	for range sims {
		base, x := simulate(r, 10, 0)
		c, err := ComparePaired(base, x, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if c.Significant(0.05) {
			falsePos++
		}
		base, x = simulate(r, 10, 1.5)
		c, _ = ComparePaired(base, x, 0.95)
		if c.ShiftCI.Contains(1.5) {
			covered++
		}
		if c.Significant(0.05) {
			found++
		}
	}
	if rate := float64(falsePos) / sims; rate > 0.06 {
		t.Errorf("false-positive rate %.3f at alpha 0.05; want at most about 0.05", rate)
	}
	if cov := float64(covered) / sims; cov < 0.93 {
		t.Errorf("95%% interval covered the true shift in %.3f of runs; want at least 0.93", cov)
	}
	if pow := float64(found) / sims; pow < 0.8 {
		t.Errorf("power %.3f against a 1.5 sd shift with 10 blocks; want at least 0.8", pow)
	}
}

// TestHolmFamilySimulated checks that Holm keeps the chance of any false
// "significant" in a family of six null comparisons at or below alpha.
func TestHolmFamilySimulated(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const sims = 1000
	anyFalse := 0
	for range sims {
		ps := make([]float64, 6)
		for i := range ps {
			base, x := simulate(r, 12, 0)
			c, _ := ComparePaired(base, x, 0.95)
			ps[i] = c.Test.P
		}
		for _, p := range Holm(ps) {
			if p < 0.05 {
				anyFalse++
				break
			}
		}
	}
	if rate := float64(anyFalse) / sims; rate > 0.06 {
		t.Errorf("family-wise false-positive rate %.3f with Holm; want at most about 0.05", rate)
	}
}

func TestComparePairedInterval(t *testing.T) {
	base := []float64{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	x := []float64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	c, err := ComparePaired(base, x, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	// Differences 1..10: Walsh averages' median 5.5; Tukey's k = 9 for
	// n = 10 (P(W+ ≤ 8) = 25/1024), so the interval is the 9th smallest
	// and 9th largest of the 55 averages: 3 and 8, coverage 1 - 50/1024.
	if c.Shift != 5.5 || c.ShiftCI.Lo != 3 || c.ShiftCI.Hi != 8 || math.Abs(c.ShiftCI.Level-(1-50.0/1024)) > 1e-12 {
		t.Errorf("ComparePaired = shift %v, CI %+v; want 5.5, [3, 8] at %.4f", c.Shift, c.ShiftCI, 1-50.0/1024)
	}
	if _, err := ComparePaired(base, x[:3], 0.95); err == nil {
		t.Error("unequal lengths: want an error")
	}
	if c, _ := ComparePaired(base[:4], x[:4], 0.95); c.ShiftCI.Valid() {
		t.Errorf("4 blocks: interval %+v; want none at 95%%", c.ShiftCI)
	}
}

func TestCV(t *testing.T) {
	if got := CV([]float64{9, 11}); math.Abs(got-math.Sqrt2/10) > 1e-12 {
		t.Errorf("CV(9, 11) = %v; want %v", got, math.Sqrt2/10)
	}
	if !math.IsNaN(CV([]float64{1})) || !math.IsNaN(CV([]float64{-1, 1})) {
		t.Error("CV of one value or a zero mean: want NaN")
	}
}
