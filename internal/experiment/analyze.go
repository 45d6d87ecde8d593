package experiment

import (
	"math"
	"slices"

	"github.com/httpslab/httpslab/internal/stats"
)

// DefaultAlpha is the family-wise significance level of the verdicts
// when Config.Alpha is 0, Level the coverage of their intervals, and
// DefaultEffect the smallest change worth finding when Config.Effect is 0.
const (
	DefaultAlpha  = 0.05
	Level         = 0.95
	DefaultEffect = 0.05
)

// Analysis is what the blocks say about each variant against the
// baseline, and what the design could have found.
type Analysis struct {
	// Alpha is the family-wise significance level.
	Alpha float64
	// Effect is the smallest relative change worth finding: a verdict
	// that is not significant but whose interval reaches past ±Effect is
	// inconclusive, not evidence of no change.
	Effect float64
	// Blocks is the number of complete blocks (every live variant
	// measured) the verdicts use.
	Blocks int
	// Family is the number of comparisons Holm's correction spans: live
	// variants other than the baseline times the metrics they have, less
	// those out of reach (Verdict.OutOfReach).
	Family int
	// MinP is the smallest p-value one comparison can reach with Blocks
	// pairs; Reachable is false when even that, times the family (Holm's
	// first step), is not below Alpha: then nothing can be significant,
	// and BlocksNeeded says how many blocks it would take.
	MinP         float64
	Reachable    bool
	BlocksNeeded int
	Verdicts     []Verdict
}

// Verdict is one variant's change in one metric against the baseline.
type Verdict struct {
	Variant int // index in Result.Variants
	Metric  string
	// Baseline and Value are the medians over the complete blocks.
	Baseline, Value float64
	// Ratio says the change was estimated on per-block ratios: Shift and
	// CI are then variant/baseline - 1 (+0.25 is 25% more). Otherwise
	// (a metric with zeros) they are variant - baseline in its unit. Shift
	// is the paired Hodges-Lehmann estimate, CI its interval (Level 0 when
	// the blocks are too few for one).
	Ratio bool
	Shift float64
	CI    stats.Interval
	// P is the signed-rank test's p-value, PHolm after Holm's correction
	// across the family; Significant is PHolm < Analysis.Alpha.
	P, PHolm    float64
	Significant bool
	// Inconclusive marks a change that is not significant while its
	// interval (of a ratio) reaches past ±Analysis.Effect, or that has no
	// interval: the noise leaves room for a change worth finding.
	Inconclusive bool
	// CV and BaseCV are the coefficients of variation of the variant's
	// and the baseline's values across blocks.
	CV, BaseCV float64
	// OutOfReach marks a comparison whose blocks differ too rarely for the
	// test to reach Alpha even uncorrected, in a design with blocks enough
	// to reach it: with k blocks in which the
	// variant's value is not the baseline's, the smallest p it could have
	// is 2/2^k whatever the signs (a count of connections that is 1 in
	// every load over HTTP/2: k = 0, p = 1). Such a comparison cannot be
	// significant, so it is left out of Holm's family (Tarone, 1990: the
	// family is the tests that could reject) and PHolm is its P.
	OutOfReach bool
	// differing is the number of blocks in which the values differ.
	differing int
}

// Analyze compares every live variant with the baseline, metric by
// metric, over the complete blocks, and corrects the p-values for the
// number of comparisons.
func Analyze(r *Result, alpha, effect float64) Analysis {
	blocks := r.CompleteBlocks()
	a := Analysis{Alpha: alpha, Effect: effect, Blocks: len(blocks)}
	if len(r.Variants) == 0 || len(blocks) == 0 {
		return a
	}
	for vi, v := range r.Variants {
		if v.Baseline || !v.Status.Measured() {
			continue
		}
		for _, m := range r.Metrics {
			base, ok1 := values(r.Variants[0], blocks, m.Name)
			xs, ok2 := values(v, blocks, m.Name)
			if !ok1 || !ok2 {
				continue
			}
			v, err := paired(base, xs)
			if err != nil {
				continue
			}
			v.Variant, v.Metric = vi, m.Name
			a.Verdicts = append(a.Verdicts, v)
		}
	}
	var family []int // indices of the verdicts in Holm's family
	var ps []float64
	for i := range a.Verdicts {
		v := &a.Verdicts[i]
		v.PHolm = v.P
		// Ties put a comparison out of reach only where the design itself
		// could reach alpha; a design that cannot is reported as such.
		v.OutOfReach = stats.SignedRankMinP(v.differing) >= alpha && stats.SignedRankMinP(a.Blocks) < alpha
		if !v.OutOfReach {
			family, ps = append(family, i), append(ps, v.P)
		}
	}
	a.Family = len(family)
	for j, p := range stats.Holm(ps) {
		a.Verdicts[family[j]].PHolm = p
	}
	for i := range a.Verdicts {
		v := &a.Verdicts[i]
		v.Significant = !v.OutOfReach && v.PHolm < alpha
		v.Inconclusive = !v.Significant && v.Ratio && (!v.CI.Valid() || v.CI.Lo < -effect || v.CI.Hi > effect)
	}
	a.MinP = stats.SignedRankMinP(a.Blocks)
	a.Reachable = a.MinP*float64(max(a.Family, 1)) < alpha
	if !a.Reachable {
		a.BlocksNeeded = stats.BlocksNeeded(a.Family, alpha)
	}
	return a
}

// paired compares a variant's values with the baseline's, block by
// block: on the log scale when every value is positive, so that the
// change is a ratio (an effect on a rate or a latency is a factor, the
// same in a slow block as in a fast one, and its interval cannot reach
// below -100%), and as differences in the metric's unit otherwise.
func paired(base, xs []float64) (Verdict, error) {
	v := Verdict{Baseline: stats.Median(base), Value: stats.Median(xs), CV: stats.CV(xs), BaseCV: stats.CV(base)}
	for i := range base {
		if xs[i] != base[i] {
			v.differing++
		}
	}
	positive := !slices.ContainsFunc(base, notPositive) && !slices.ContainsFunc(xs, notPositive)
	if !positive {
		c, err := stats.ComparePaired(base, xs, Level)
		v.Shift, v.CI, v.P = c.Shift, c.ShiftCI, c.Test.P
		return v, err
	}
	c, err := stats.ComparePaired(logs(base), logs(xs), Level)
	if err != nil {
		return v, err
	}
	v.Ratio, v.Shift, v.P = true, math.Expm1(c.Shift), c.Test.P
	if c.ShiftCI.Valid() {
		v.CI = stats.Interval{Lo: math.Expm1(c.ShiftCI.Lo), Hi: math.Expm1(c.ShiftCI.Hi), Level: c.ShiftCI.Level}
	}
	return v, nil
}

func notPositive(x float64) bool { return !(x > 0) }

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// Inconclusive returns the verdicts marked inconclusive.
func (a Analysis) Inconclusive() []Verdict {
	var out []Verdict
	for _, v := range a.Verdicts {
		if v.Inconclusive {
			out = append(out, v)
		}
	}
	return out
}

// values returns a variant's values of one metric in the given blocks,
// and false when any is missing.
func values(v VariantResult, blocks []int, metric string) ([]float64, bool) {
	out := make([]float64, 0, len(blocks))
	for _, b := range blocks {
		s := v.Samples[b]
		x, ok := s.Values[metric]
		if !ok || math.IsNaN(x) {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}
