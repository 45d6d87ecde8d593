package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// MaxExact is the largest sample size, on either side, for which
// MannWhitney and Compare use the exact null distribution of U (with ties,
// the permutation distribution given the tied groups); above it the normal
// approximation is used, which is already very close there. Below it the
// approximation is not: 3 tied values against 3 others would come out at
// p = 0.047, where no arrangement of 3 against 3 can go below 0.1.
const MaxExact = 50

// ErrEmpty is returned when a two-sample method gets an empty sample.
var ErrEmpty = errors.New("empty sample")

// ErrNaN is returned when a sample holds a NaN, which has no rank.
var ErrNaN = errors.New("NaN in sample")

// ErrInf is returned by Compare when a sample holds an infinite value:
// the test could rank it, but the shift would be a difference of
// infinities.
var ErrInf = errors.New("infinite value in sample")

// UTest is the result of a Mann-Whitney U test (Wilcoxon rank-sum test).
type UTest struct {
	// U counts the pairs (x_i, y_j) with x_i > y_j, a tie counting one
	// half; under the null hypothesis its mean is N1·N2/2.
	U      float64
	N1, N2 int
	// P is the two-sided p-value.
	P float64
	// Exact is true when P comes from the exact distribution of U (up to
	// MaxExact per side; with ties, its distribution given the tied
	// groups), false for the normal approximation with continuity and tie
	// corrections.
	Exact bool
}

// MannWhitney tests whether x and y come from the same distribution
// against the alternative that one tends to be larger. It makes no
// assumption on the shape of the distributions.
func MannWhitney(x, y []float64) (UTest, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return UTest{}, fmt.Errorf("mann-whitney test: %w", ErrEmpty)
	}
	if hasNaN(x) || hasNaN(y) {
		return UTest{}, fmt.Errorf("mann-whitney test: %w", ErrNaN)
	}
	r1, ties := rankSum(x, y)
	u := r1 - float64(n1*(n1+1))/2
	t := UTest{U: u, N1: n1, N2: n2}
	if n1 <= MaxExact && n2 <= MaxExact {
		if ties == 0 {
			cdf := uNullCDF(n1, n2)
			lo := math.Min(u, float64(n1*n2)-u)
			t.P = math.Min(1, 2*cdf[int(math.Round(lo))])
		} else {
			t.P = tiedExactP(x, y, r1)
		}
		t.Exact = true
		return t, nil
	}
	sigma := uSigma(n1, n2, ties)
	if sigma == 0 {
		t.P = 1 // every value is the same: no evidence of a difference
		return t, nil
	}
	mu := float64(n1*n2) / 2
	z := math.Max(0, math.Abs(u-mu)-0.5) / sigma
	t.P = math.Min(1, 2*normalCDF(-z))
	return t, nil
}

// hasNaN reports whether xs holds a NaN.
func hasNaN(xs []float64) bool {
	return slices.ContainsFunc(xs, math.IsNaN)
}

// MinP is the smallest two-sided p-value the exact Mann-Whitney test can
// give for samples of sizes m and n, 2 / C(m+n, m): with fewer runs than
// that allows, no difference can be significant at an alpha below it.
func MinP(m, n int) float64 {
	lg := func(x int) float64 {
		v, _ := math.Lgamma(float64(x) + 1)
		return v
	}
	return math.Min(1, 2*math.Exp(lg(m)+lg(n)-lg(m+n)))
}

// rankSum returns the sum of the ranks of x in the pooled sample (tied
// values get the mean of their ranks) and the tie term Σ(t³ - t) over the
// groups of t tied values. The samples must hold no NaN: a NaN equals
// nothing, not even itself, so its group of ties would never end.
func rankSum(x, y []float64) (float64, float64) {
	type obs struct {
		v     float64
		fromX bool
	}
	all := make([]obs, 0, len(x)+len(y))
	for _, v := range x {
		all = append(all, obs{v, true})
	}
	for _, v := range y {
		all = append(all, obs{v, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	var r1, ties float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1 .. j
		for k := i; k < j; k++ {
			if all[k].fromX {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties += t*t*t - t
		}
		i = j
	}
	return r1, ties
}

// uSigma is the standard deviation of U under the null hypothesis, with
// the correction for ties.
func uSigma(n1, n2 int, ties float64) float64 {
	n := float64(n1 + n2)
	v := float64(n1*n2) / 12 * ((n + 1) - ties/(n*(n-1)))
	if v <= 0 {
		return 0
	}
	return math.Sqrt(v)
}

// uNullCDF returns P(U ≤ u) for u = 0 .. m·n under the null hypothesis
// without ties. It builds the distribution with the recurrence
// p(i,j,u) = i/(i+j)·p(i-1,j,u-j) + j/(i+j)·p(i,j-1,u) (the largest of the
// i+j values belongs to x with probability i/(i+j), and then beats all j
// values of y), which only adds probabilities and so neither overflows
// nor cancels.
func uNullCDF(m, n int) []float64 {
	key := [2]int{m, n}
	nullCache.Lock()
	cdf, ok := nullCache.m[key]
	nullCache.Unlock()
	if ok {
		return cdf
	}
	cdf = buildUNullCDF(m, n)
	nullCache.Lock()
	if len(nullCache.m) >= 256 {
		clear(nullCache.m) // bound the memory; rebuilding is cheap enough
	}
	nullCache.m[key] = cdf
	nullCache.Unlock()
	return cdf
}

// nullCache keeps the null distributions already built: a comparison
// runner asks for the same sample sizes again and again.
var nullCache = struct {
	sync.Mutex
	m map[[2]int][]float64
}{m: map[[2]int][]float64{}}

func buildUNullCDF(m, n int) []float64 {
	prev := make([][]float64, n+1) // row i-1
	for j := range prev {
		prev[j] = []float64{1} // i = 0: U = 0 surely
	}
	for i := 1; i <= m; i++ {
		cur := make([][]float64, n+1)
		cur[0] = []float64{1} // j = 0: U = 0 surely
		for j := 1; j <= n; j++ {
			p := make([]float64, i*j+1)
			a, b := float64(i)/float64(i+j), float64(j)/float64(i+j)
			for u, q := range prev[j] {
				p[u+j] += a * q
			}
			for u, q := range cur[j-1] {
				p[u] += b * q
			}
			cur[j] = p
		}
		prev = cur
	}
	pmf := prev[n]
	cdf := make([]float64, len(pmf))
	var sum float64
	for u, q := range pmf {
		sum += q
		cdf[u] = math.Min(1, sum)
	}
	return cdf
}

// Holm adjusts the p-values of a family of tests with Holm's step-down
// method, which keeps the chance of any false "significant" in the family
// at most alpha without assuming the tests are independent. The result is
// in the order of ps.
func Holm(ps []float64) []float64 {
	k := len(ps)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, k)
	running := 0.0
	for rank, i := range idx {
		adj := math.Min(1, float64(k-rank)*ps[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// tiedExactP is the exact two-sided p-value of the rank sum r1 of x when
// the pooled sample has ties: every way of choosing which len(x) of the
// pooled values are x's is equally likely under the null hypothesis, and
// the tied values keep their mean ranks. It counts those ways by the sum
// of x's doubled ranks (an integer, as a mean rank is a multiple of ½),
// one group of tied values at a time: k of a group of t values with
// doubled rank d add k·d to the sum in C(t, k) ways. The work grows with
// len(x)·(len(x)+len(y))³, bounded by MaxExact.
func tiedExactP(x, y []float64, r1 float64) float64 {
	if len(x) > len(y) { // count with the smaller side: less work, same p
		n := len(x) + len(y)
		x, y, r1 = y, x, float64(n*(n+1))/2-r1
	}
	pooled := append(slices.Clone(x), y...)
	slices.Sort(pooled)
	n1 := len(x)
	maxSum := 0 // the largest doubled rank sum n1 values can have
	for r := len(pooled) - n1 + 1; r <= len(pooled); r++ {
		maxSum += 2 * r
	}
	// ways[k][s]: ways to pick k values of the groups seen so far with
	// doubled rank sum s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	top := 0 // no sum above it has a way yet
	for i := 0; i < len(pooled); {
		j := i
		for j < len(pooled) && pooled[j] == pooled[i] {
			j++
		}
		addGroup(ways, j-i, i+j+1, top) // ranks i+1 .. j: doubled mean i+j+1
		top = min(maxSum, top+min(j-i, n1)*(i+j+1))
		i = j
	}
	obs := int(math.Round(2 * r1))
	var below, above, total float64
	for s, w := range ways[n1] {
		total += w
		if s <= obs {
			below += w
		}
		if s >= obs {
			above += w
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total)
}

// addGroup adds a group of t tied values with doubled rank d to the
// counts of tiedExactP, in place: k counts down so that each count it
// reads does not hold this group yet. No count above top is set yet.
func addGroup(ways [][]float64, t, d, top int) {
	n1 := len(ways) - 1
	for k := n1; k >= 1; k-- {
		row := ways[k]
		choose := 1.0 // C(t, c)
		for c := 1; c <= min(t, k); c++ {
			choose = choose * float64(t-c+1) / float64(c)
			from, shift := ways[k-c], c*d
			for s := 0; s <= top && s+shift < len(row); s++ {
				if from[s] != 0 {
					row[s+shift] += choose * from[s]
				}
			}
		}
	}
}
