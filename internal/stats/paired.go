package stats

import (
	"fmt"
	"math"
	"slices"
)

// PairedComparison states how x differs from a baseline measured in the
// same blocks: the i-th values of both come from block i.
type PairedComparison struct {
	// Shift is the Hodges-Lehmann estimate of the paired difference
	// x - base: the median of the Walsh averages (d_i + d_j)/2, i ≤ j, of
	// the per-block differences.
	Shift float64
	// ShiftCI is the distribution-free interval for it that goes with the
	// signed-rank test (Tukey's method); not valid below 6 blocks at 95%.
	ShiftCI Interval
	// Test is the Wilcoxon signed-rank test of the differences.
	Test SignedRankTest
}

// Significant reports whether the difference is significant at alpha.
func (c PairedComparison) Significant(alpha float64) bool { return c.Test.P < alpha }

// ComparePaired compares x against base block by block; both must have
// one value per block, in the same order.
func ComparePaired(base, x []float64, level float64) (PairedComparison, error) {
	if len(base) != len(x) {
		return PairedComparison{}, fmt.Errorf("comparing paired samples: %d against %d values", len(x), len(base))
	}
	if slices.ContainsFunc(base, isInf) || slices.ContainsFunc(x, isInf) {
		return PairedComparison{}, fmt.Errorf("comparing paired samples: %w", ErrInf)
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - base[i]
	}
	t, err := SignedRank(d)
	if err != nil {
		return PairedComparison{}, err
	}
	w := walshAverages(d)
	c := PairedComparison{Shift: Quantile(w, 0.5), Test: t}
	if k, cover := walshRank(len(d), level); k > 0 {
		c.ShiftCI = Interval{Lo: w[k-1], Hi: w[len(w)-k], Level: cover}
	}
	return c, nil
}

// walshAverages returns the sorted averages (d_i + d_j)/2 for i ≤ j.
func walshAverages(d []float64) []float64 {
	w := make([]float64, 0, len(d)*(len(d)+1)/2)
	for i := range d {
		for j := i; j < len(d); j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	slices.Sort(w)
	return w
}

// walshRank returns the 1-based rank k such that the k-th smallest and
// k-th largest Walsh averages bound the shift with at least the given
// coverage, and that coverage; k = 0 when n is too small. The rank is the
// signed-rank statistic's lower critical value: P(W+ ≤ k-1) ≤ (1-level)/2.
func walshRank(n int, level float64) (int, float64) {
	half := (1 - level) / 2
	if n <= MaxExact {
		ranks := make([]float64, n)
		for i := range ranks {
			ranks[i] = float64(i + 1)
		}
		pmf := signedPMF(ranks) // over doubled ranks: only even sums occur
		k, cdf, prev := 0, 0.0, 0.0
		for w := 0; 2*w < len(pmf); w++ {
			cdf += pmf[2*w]
			if cdf > half+1e-12 {
				break
			}
			k, prev = w+1, cdf
		}
		if k == 0 {
			return 0, 0
		}
		return k, 1 - 2*prev
	}
	nf := float64(n)
	mu, sigma := nf*(nf+1)/4, math.Sqrt(nf*(nf+1)*(2*nf+1)/24)
	k := int(math.Floor(mu - normalQuantile(1-half)*sigma - 0.5 + 1))
	if k < 1 {
		return 0, 0
	}
	return k, 1 - 2*normalCDF((float64(k-1)+0.5-mu)/sigma)
}

// CV is the coefficient of variation of xs: the sample standard deviation
// over the mean's magnitude (NaN for fewer than two values or a zero mean).
func CV(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := Mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	if m == 0 {
		return math.NaN()
	}
	return math.Sqrt(ss/float64(len(xs)-1)) / math.Abs(m)
}
