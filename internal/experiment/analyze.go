package experiment

import (
	"math"

	"github.com/httpslab/httpslab/internal/stats"
)

// DefaultAlpha is the family-wise significance level of the verdicts
// when Config.Alpha is 0, and Level the coverage of their intervals.
const (
	DefaultAlpha = 0.05
	Level        = 0.95
)

// Analysis is what the blocks say about each variant against the
// baseline, and what the design could have found.
type Analysis struct {
	// Alpha is the family-wise significance level.
	Alpha float64
	// Blocks is the number of complete blocks (every live variant
	// measured) the verdicts use.
	Blocks int
	// Family is the number of comparisons Holm's correction spans: live
	// variants other than the baseline times the metrics they have.
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
	// Shift is the paired Hodges-Lehmann estimate of variant - baseline,
	// with its interval (CI.Level 0 when the blocks are too few for one).
	Shift float64
	CI    stats.Interval
	// P is the signed-rank test's p-value, PHolm after Holm's correction
	// across the family; Significant is PHolm < Analysis.Alpha.
	P, PHolm    float64
	Significant bool
	// CV and BaseCV are the coefficients of variation of the variant's
	// and the baseline's values across blocks.
	CV, BaseCV float64
}

// Analyze compares every live variant with the baseline, metric by
// metric, over the complete blocks, and corrects the p-values for the
// number of comparisons.
func Analyze(r *Result, alpha float64) Analysis {
	blocks := r.CompleteBlocks()
	a := Analysis{Alpha: alpha, Blocks: len(blocks)}
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
			c, err := stats.ComparePaired(base, xs, Level)
			if err != nil {
				continue
			}
			a.Verdicts = append(a.Verdicts, Verdict{Variant: vi, Metric: m.Name, Baseline: stats.Median(base),
				Value: stats.Median(xs), Shift: c.Shift, CI: c.ShiftCI, P: c.Test.P, CV: stats.CV(xs), BaseCV: stats.CV(base)})
		}
	}
	a.Family = len(a.Verdicts)
	ps := make([]float64, len(a.Verdicts))
	for i, v := range a.Verdicts {
		ps[i] = v.P
	}
	for i, p := range stats.Holm(ps) {
		a.Verdicts[i].PHolm = p
		a.Verdicts[i].Significant = p < alpha
	}
	a.MinP = stats.SignedRankMinP(a.Blocks)
	a.Reachable = a.MinP*float64(max(a.Family, 1)) < alpha
	if !a.Reachable {
		a.BlocksNeeded = stats.BlocksNeeded(a.Family, alpha)
	}
	return a
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

// Relative is the shift as a share of the baseline's median (NaN when
// the baseline is 0).
func (v Verdict) Relative() float64 {
	if v.Baseline == 0 {
		return math.NaN()
	}
	return v.Shift / v.Baseline
}
