// Package stats holds the statistics httpslab reports with: quantiles,
// medians with distribution-free confidence intervals, the Hodges-Lehmann
// shift between two samples with its interval, the Mann-Whitney U test,
// the Wilcoxon signed-rank test with its paired shift for randomised
// blocks, and the Holm correction for many comparisons.
//
// Latencies are skewed and heavy-tailed, so everything here is rank- or
// order-based: no method assumes a normal distribution of the data.
package stats

import (
	"math"
	"slices"
)

// Sorted returns a sorted copy of xs, leaving xs as it was.
func Sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// Quantile returns the p-quantile (0 ≤ p ≤ 1) of the sorted sample s,
// interpolating linearly between order statistics (Hyndman and Fan's
// type 7, the default of R and NumPy). It returns NaN for an empty sample.
func Quantile(s []float64, p float64) float64 {
	n := len(s)
	switch {
	case n == 0 || math.IsNaN(p):
		return math.NaN()
	case p <= 0:
		return s[0]
	case p >= 1:
		return s[n-1]
	}
	h := p * float64(n-1)
	lo := int(math.Floor(h))
	if lo+1 >= n {
		return s[n-1]
	}
	if h == float64(lo) || s[lo] == s[lo+1] {
		return s[lo] // no interpolation: Inf + 0·(Inf - Inf) would be NaN
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// Median returns the median of xs (NaN when empty); xs need not be sorted.
func Median(xs []float64) float64 {
	return Quantile(Sorted(xs), 0.5)
}

// Mean returns the arithmetic mean of xs (NaN when empty).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// normalCDF is the standard normal distribution function.
func normalCDF(z float64) float64 {
	return 0.5 * math.Erfc(-z/math.Sqrt2)
}

// normalQuantile is the inverse of normalCDF, through math.Erfcinv.
func normalQuantile(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return -math.Sqrt2 * math.Erfcinv(2*p)
}
