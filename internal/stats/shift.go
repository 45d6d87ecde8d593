package stats

import (
	"fmt"
	"math"
	"slices"
)

// Comparison states how sample X differs from a baseline sample.
type Comparison struct {
	// Shift is the Hodges-Lehmann estimate of how much X is larger than
	// the baseline: the median of all pairwise differences x_j - base_i.
	// It is the difference of medians for two samples of the same shape,
	// and far less noisy than subtracting the two medians.
	Shift float64
	// ShiftCI is the distribution-free interval for the shift that goes
	// with the Mann-Whitney test (Moses' method).
	ShiftCI Interval
	// Test is the Mann-Whitney U test of X against the baseline.
	Test UTest
}

// Significant reports whether the difference is significant at alpha.
func (c Comparison) Significant(alpha float64) bool {
	return c.Test.P < alpha
}

// Compare compares x against base: the shift x - base with its interval
// at level, and the Mann-Whitney test. Memory and time grow with
// len(base)·len(x), so callers bound the sample sizes.
func Compare(base, x []float64, level float64) (Comparison, error) {
	if len(base) == 0 || len(x) == 0 {
		return Comparison{}, fmt.Errorf("comparing samples: %w", ErrEmpty)
	}
	t, err := MannWhitney(x, base)
	if err != nil {
		return Comparison{}, err
	}
	if slices.ContainsFunc(base, isInf) || slices.ContainsFunc(x, isInf) {
		// Ranks order an infinite value, but a difference between two
		// of them (Inf - Inf) is no number: there is no shift to give.
		return Comparison{}, fmt.Errorf("comparing samples: %w", ErrInf)
	}
	d := pairwiseDiffs(base, x)
	c := Comparison{Shift: Quantile(d, 0.5), Test: t}
	k, cover := shiftRank(len(base), len(x), level, t.Exact)
	if k > 0 {
		c.ShiftCI = Interval{Lo: d[k-1], Hi: d[len(d)-k], Level: cover}
	}
	return c, nil
}

func isInf(v float64) bool { return math.IsInf(v, 0) }

// pairwiseDiffs returns the sorted differences x_j - base_i of all pairs.
func pairwiseDiffs(base, x []float64) []float64 {
	d := make([]float64, 0, len(base)*len(x))
	for _, b := range base {
		for _, v := range x {
			d = append(d, v-b)
		}
	}
	slices.Sort(d)
	return d
}

// shiftRank returns the 1-based rank k such that the k-th smallest and the
// k-th largest pairwise differences bound the shift with at least the
// given coverage, and that coverage; k = 0 when the samples are too small.
// The rank is the lower critical value of U: P(U ≤ k-1) ≤ (1-level)/2.
func shiftRank(m, n int, level float64, exact bool) (int, float64) {
	half := (1 - level) / 2
	if exact || (m <= MaxExact && n <= MaxExact) {
		cdf := uNullCDF(m, n)
		k := 0
		for u := 0; u < len(cdf) && cdf[u] <= half+1e-12; u++ {
			k = u + 1
		}
		if k == 0 {
			return 0, 0
		}
		return k, 1 - 2*cdf[k-1]
	}
	mu := float64(m*n) / 2
	sigma := uSigma(m, n, 0)
	z := normalQuantile(1 - half)
	k := int(math.Floor(mu - z*sigma - 0.5 + 1))
	if k < 1 {
		return 0, 0
	}
	cover := 1 - 2*normalCDF((float64(k-1)+0.5-mu)/sigma)
	return k, cover
}
