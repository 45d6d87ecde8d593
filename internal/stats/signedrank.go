package stats

import (
	"fmt"
	"math"
	"slices"
)

// SignedRankTest is the result of a Wilcoxon signed-rank test of paired
// differences against a median of zero.
type SignedRankTest struct {
	// WPlus is the sum of the ranks of |d| of the positive differences;
	// tied |d| get the mean of their ranks.
	WPlus float64
	// N is the number of non-zero differences (zeros are dropped, as in
	// Wilcoxon's own method).
	N int
	// P is the two-sided p-value.
	P float64
	// Exact is true when P comes from the exact permutation distribution
	// of the signs (up to MaxExact differences, ties included), false for
	// the normal approximation with continuity and tie corrections.
	Exact bool
}

// SignedRank tests whether paired differences d (x_i - base_i, one per
// block) are centred on zero, against the alternative that one side tends
// to be larger. Under the null hypothesis each difference is as likely
// positive as negative, whatever the blocks' own levels: that is why a
// randomised block design compares within blocks.
func SignedRank(d []float64) (SignedRankTest, error) {
	if len(d) == 0 {
		return SignedRankTest{}, fmt.Errorf("signed-rank test: %w", ErrEmpty)
	}
	if hasNaN(d) {
		return SignedRankTest{}, fmt.Errorf("signed-rank test: %w", ErrNaN)
	}
	ranks, pos := absRanks(d)
	t := SignedRankTest{N: len(ranks)}
	for i, r := range ranks {
		if pos[i] {
			t.WPlus += r
		}
	}
	if t.N == 0 {
		t.P, t.Exact = 1, true // every difference is zero
		return t, nil
	}
	if t.N <= MaxExact {
		t.P, t.Exact = exactSignedP(ranks, t.WPlus), true
		return t, nil
	}
	t.P = normalSignedP(ranks, t.WPlus)
	return t, nil
}

// absRanks ranks the non-zero |d| (mean ranks for ties) and says which
// differences were positive, in the order of the ranks returned.
func absRanks(d []float64) (ranks []float64, pos []bool) {
	var nz []float64
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	slices.SortFunc(nz, func(a, b float64) int { return cmpFloat(math.Abs(a), math.Abs(b)) })
	ranks = make([]float64, len(nz))
	pos = make([]bool, len(nz))
	for i := 0; i < len(nz); {
		j := i
		for j < len(nz) && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		mean := float64(i+1+j) / 2 // ranks i+1 .. j
		for k := i; k < j; k++ {
			ranks[k], pos[k] = mean, nz[k] > 0
		}
		i = j
	}
	return ranks, pos
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exactSignedP is the exact two-sided p-value of W+ given the ranks: each
// rank's sign is + or - with probability one half, independently. Ranks
// are multiples of one half, so the distribution is built over doubled
// ranks, which are integers.
func exactSignedP(ranks []float64, wPlus float64) float64 {
	pmf := signedPMF(ranks)
	w := int(math.Round(2 * wPlus))
	var lo, hi float64
	for s, q := range pmf {
		if s <= w {
			lo += q
		}
		if s >= w {
			hi += q
		}
	}
	return math.Min(1, 2*math.Min(lo, hi))
}

// signedPMF returns the probabilities of each sum of doubled ranks of the
// positive signs.
func signedPMF(ranks []float64) []float64 {
	total := 0
	for _, r := range ranks {
		total += int(math.Round(2 * r))
	}
	pmf := make([]float64, total+1)
	pmf[0] = 1
	top := 0
	for _, r := range ranks {
		r2 := int(math.Round(2 * r))
		for s := top; s >= 0; s-- {
			pmf[s+r2] += 0.5 * pmf[s]
			pmf[s] *= 0.5
		}
		top += r2
	}
	return pmf
}

// normalSignedP is the normal approximation of the two-sided p-value,
// with the tie correction of the variance and a continuity correction.
func normalSignedP(ranks []float64, wPlus float64) float64 {
	n := float64(len(ranks))
	mu := n * (n + 1) / 4
	var sq float64
	for _, r := range ranks {
		sq += r * r
	}
	sigma := math.Sqrt(sq / 4) // Σ r² / 4 is the variance with ties
	if sigma == 0 {
		return 1
	}
	z := math.Max(0, math.Abs(wPlus-mu)-0.5) / sigma
	return math.Min(1, 2*normalCDF(-z))
}

// SignedRankMinP is the smallest two-sided p-value the signed-rank test
// can give with n paired differences, 2 / 2^n (every difference of one
// sign): 10 blocks cannot go below 0.00195.
func SignedRankMinP(n int) float64 {
	if n <= 0 {
		return 1
	}
	return math.Min(1, math.Ldexp(2, -n))
}

// BlocksNeeded is the fewest paired blocks with which a signed-rank test
// in a Holm-corrected family of the given size can still reach alpha:
// Holm multiplies the smallest p by the family size, so the design's
// smallest p times the family must fall below alpha.
func BlocksNeeded(family int, alpha float64) int {
	for n := 1; n <= 64; n++ {
		if SignedRankMinP(n)*float64(max(family, 1)) < alpha {
			return n
		}
	}
	return 64
}
