package stats

import (
	"math"
)

// Interval is a confidence interval. Level is the coverage the interval
// actually has, which for order-statistic intervals is at least the level
// asked for (they cannot hit it exactly); zero means no interval could be
// formed (the sample is too small for the level asked).
type Interval struct {
	Lo, Hi float64
	Level  float64
}

// Valid reports whether the interval was formed.
func (iv Interval) Valid() bool { return iv.Level > 0 }

// HalfWidth is half the width of the interval (+Inf when not valid).
func (iv Interval) HalfWidth() float64 {
	if !iv.Valid() {
		return math.Inf(1)
	}
	return (iv.Hi - iv.Lo) / 2
}

// Contains reports whether x lies in the closed interval.
func (iv Interval) Contains(x float64) bool {
	return iv.Valid() && iv.Lo <= x && x <= iv.Hi
}

// MedianCI returns the distribution-free confidence interval for the
// median of xs at the given level (e.g. 0.95): the pair of order
// statistics x(k) and x(n+1-k) with the largest k whose coverage under
// Binomial(n, 1/2) is at least level. It needs no assumption on the
// shape of the distribution. For n < 6 at 95% no such pair exists and
// the returned interval is not valid.
func MedianCI(xs []float64, level float64) Interval {
	s := Sorted(xs)
	n := len(s)
	k, cover := medianRank(n, level)
	if k == 0 {
		return Interval{}
	}
	return Interval{Lo: s[k-1], Hi: s[n-k], Level: cover}
}

// medianRank returns the 1-based rank k of the lower bound of the median
// interval for n observations, and the interval's exact coverage
// 1 - 2·P(X ≤ k-1) with X ~ Binomial(n, 1/2); k = 0 when none reaches level.
func medianRank(n int, level float64) (int, float64) {
	if n < 1 {
		return 0, 0
	}
	k, cover := 0, 0.0
	cdf := binomHalfPMF(n, 0) // P(X <= j-1) while examining rank j
	for j := 1; j <= (n+1)/2; j++ {
		c := 1 - 2*cdf
		if c < level-1e-12 {
			break
		}
		k, cover = j, c
		cdf += binomHalfPMF(n, j)
	}
	return k, cover
}

// binomHalfPMF is P(X = j) for X ~ Binomial(n, 1/2), through log-gamma so
// that it does not overflow for large n.
func binomHalfPMF(n, j int) float64 {
	lg := func(x int) float64 {
		v, _ := math.Lgamma(float64(x) + 1)
		return v
	}
	return math.Exp(lg(n) - lg(j) - lg(n-j) - float64(n)*math.Ln2)
}

// Summary describes one sample.
type Summary struct {
	N        int
	Min, Max float64
	Mean     float64
	Median   float64
	MedianCI Interval
	P90, P99 float64
}

// Summarize describes xs, with the median's interval at level.
func Summarize(xs []float64, level float64) Summary {
	s := Sorted(xs)
	if len(s) == 0 {
		nan := math.NaN()
		return Summary{Min: nan, Max: nan, Mean: nan, Median: nan, P90: nan, P99: nan}
	}
	return Summary{
		N:        len(s),
		Min:      s[0],
		Max:      s[len(s)-1],
		Mean:     Mean(s),
		Median:   Quantile(s, 0.5),
		MedianCI: MedianCI(s, level),
		P90:      Quantile(s, 0.9),
		P99:      Quantile(s, 0.99),
	}
}
