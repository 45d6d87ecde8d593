package report

import (
	"math"
	"slices"
)

// quantile returns the q-quantile (0 <= q <= 1) of sorted values by
// linear interpolation between the closest ranks (the default of R and
// NumPy, "type 7"), so the median of an even count is the mean of the
// middle two. It returns 0 for no values.
func quantile[T ~int64](sorted []T, q float64) T {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[n-1]
	}
	pos := q * float64(n-1)
	lo := int(pos)
	if lo+1 >= n {
		return sorted[n-1]
	}
	frac := pos - float64(lo)
	a, b := float64(sorted[lo]), float64(sorted[lo+1])
	return T(math.Round(a + frac*(b-a)))
}

// dist is the summary of one sample (durations or byte counts).
type dist[T ~int64] struct {
	Count                 int
	Min, Median, P90, Max T
}

// summarize sorts a copy of values and returns their distribution.
func summarize[T ~int64](values []T) dist[T] {
	if len(values) == 0 {
		return dist[T]{}
	}
	s := slices.Clone(values)
	slices.Sort(s)
	return dist[T]{
		Count:  len(s),
		Min:    s[0],
		Median: quantile(s, 0.5),
		P90:    quantile(s, 0.9),
		Max:    s[len(s)-1],
	}
}
