package experiment

import (
	"testing"
)

// analysisFixture is an experiment of two variants over n blocks: the
// first 20% slower in "load" in every block, the second as the
// baseline; "conns" is 1 everywhere, except where a variant's value is
// given per block.
func analysisFixture(n int, conns func(v, b int) float64) *Result {
	r := &Result{Metrics: []Metric{{Name: "load", Unit: "ms"}, {Name: "conns", Unit: "conn"}}, Blocks: n}
	r.Variants = []VariantResult{{Name: "base", Baseline: true, Status: Base}, {Name: "slow", Status: Verified},
		{Name: "same", Status: Unverified}}
	for b := range n {
		r.Order = append(r.Order, []int{0, 1, 2})
		for v := range r.Variants {
			load := 100 + float64(b*b%7)
			if v == 1 {
				load *= 1.2
			}
			if v == 2 {
				load += float64(b%2*2 - 1) // ±1 ms, alternating
			}
			s := &Sample{Values: map[string]float64{"load": load, "conns": conns(v, b)}}
			r.Variants[v].Samples = append(r.Variants[v].Samples, s)
		}
	}
	return r
}

// TestAnalyzeOutOfReach checks that a comparison whose blocks are tied
// (a metric that is the same in every run) is left out of Holm's family,
// so that it does not dilute the others, while a design too small for
// any verdict still says so for the whole family.
func TestAnalyzeOutOfReach(t *testing.T) {
	one := func(int, int) float64 { return 1 }
	a := Analyze(analysisFixture(8, one), 0.05, 0.05)
	if a.Family != 2 || len(a.Verdicts) != 4 || !a.Reachable {
		t.Fatalf("family %d of %d verdicts, reachable %v; want 2 of 4 (the tied conns left out), reachable", a.Family, len(a.Verdicts), a.Reachable)
	}
	for _, v := range a.Verdicts {
		slow := r(v) == "slow"
		switch {
		case v.Metric == "conns" && (!v.OutOfReach || v.Significant || v.PHolm != v.P):
			t.Errorf("%s conns: out of reach %v, significant %v, p %v Holm %v; want out of reach, not significant, p uncorrected",
				r(v), v.OutOfReach, v.Significant, v.P, v.PHolm)
		case v.Metric == "load" && (v.OutOfReach || v.Significant != slow):
			t.Errorf("%s load: out of reach %v, significant %v (p %v, Holm %v); want in the family, significant %v",
				r(v), v.OutOfReach, v.Significant, v.P, v.PHolm, slow)
		}
	}
	// 8 blocks over a family of 2: 2 · 2/256 = 0.016. Had the tied
	// comparisons counted, 4 · 2/256 = 0.031; the slow load's p is
	// Holm's smallest step either way, so check the factor itself.
	for _, v := range a.Verdicts {
		if r(v) == "slow" && v.Metric == "load" && v.PHolm != 2*v.P {
			t.Errorf("slow load: Holm %v; want 2 × %v (a family of 2)", v.PHolm, v.P)
		}
	}
	// Two blocks of eight differ: 2/2^2 = 0.5, out of reach as well.
	twice := func(v, b int) float64 {
		if v == 2 && b < 2 {
			return 2
		}
		return 1
	}
	if a := Analyze(analysisFixture(8, twice), 0.05, 0.05); a.Family != 2 {
		t.Errorf("conns differing in 2 of 8 blocks: family %d; want 2", a.Family)
	}
	// Differing in every block, conns is in the family.
	every := func(v, b int) float64 { return 1 + float64(v*(b+1)) }
	if a := Analyze(analysisFixture(8, every), 0.05, 0.05); a.Family != 4 {
		t.Errorf("conns differing in every block: family %d; want 4", a.Family)
	}
	// With 3 blocks nothing can be significant: the whole family is
	// reported, and the blocks it would take.
	a = Analyze(analysisFixture(3, one), 0.05, 0.05)
	if a.Family != 4 || a.Reachable || a.BlocksNeeded != 8 {
		t.Errorf("3 blocks: family %d, reachable %v, blocks needed %d; want 4, false, 8", a.Family, a.Reachable, a.BlocksNeeded)
	}
}

func r(v Verdict) string { return []string{"base", "slow", "same"}[v.Variant] }
