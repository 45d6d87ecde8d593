package compare

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDiffIntervalMatchesVerdict compares variants a small shift apart,
// so that some comparisons come out significant and some not, at several
// alphas: the interval of each difference must leave out zero exactly
// when the difference is significant, have at least 1 - alpha coverage,
// and the summary must name that level. With the interval at 95% and
// --alpha 0.2, "costs +0.9 ms (95% CI -0.2 to 2.1)" stated an effect
// with an interval across zero.
func TestDiffIntervalMatchesVerdict(t *testing.T) {
	a, b := twoKeys()
	for _, alpha := range []float64{0.005, 0.05, 0.2} {
		sig, not := 0, 0
		for rep := range 60 {
			res, err := Run(context.Background(), Config{
				Variants: []Variant{
					{Key: a, Sampler: fixed(uint64(2*rep+1), 20*time.Millisecond, 5*time.Millisecond)},
					{Key: b, Sampler: fixed(uint64(2*rep+2), 23*time.Millisecond, 5*time.Millisecond)},
				},
				Runs: 12, Warmup: -1, Alpha: alpha, Seed: uint64(rep + 1),
			})
			if err != nil {
				t.Fatal(err)
			}
			d := res.Variants[1].VsBaseline
			excludesZero := d.Lo > 0 || d.Hi < 0
			if d.Significant != excludesZero || d.CILevel < 1-alpha-1e-9 {
				t.Fatalf("alpha %v: diff %+v: significant %v but interval [%v, %v] at %v", alpha, d, d.Significant, d.Lo, d.Hi, d.CILevel)
			}
			if d.Significant {
				sig++
				label := FormatLevel(1-alpha) + " CI"
				if f := strings.Join(res.Findings(), "\n"); !strings.Contains(f, label) {
					t.Errorf("alpha %v: findings %q; want the interval named %q", alpha, f, label)
				}
			} else {
				not++
			}
		}
		if sig == 0 || not == 0 {
			t.Errorf("alpha %v: %d significant, %d not; want both, for the test to tell anything", alpha, sig, not)
		}
	}
}

func TestPercentAndPText(t *testing.T) {
	for _, tt := range []struct {
		level float64
		want  string
	}{{0.95, "95%"}, {0.99, "99%"}, {0.995, "99.5%"}, {0.8, "80%"}, {1 - 0.0001, "99.99%"}} {
		if got := FormatLevel(tt.level); got != tt.want {
			t.Errorf("FormatLevel(%v) = %q; want %q", tt.level, got, tt.want)
		}
	}
	for _, tt := range []struct {
		p    float64
		want string
	}{{0.052, "= 0.052"}, {0.41, "= 0.410"}, {0.0004, "< 0.001"}, {1, "= 1.000"}} {
		if got := pText(tt.p); got != tt.want {
			t.Errorf("pText(%v) = %q; want %q", tt.p, got, tt.want)
		}
	}
}

// TestFailure: a finished run that measured no HTTPS variant, or nothing
// but the baseline, fails with the error that dropped the first variant
// missing; an interrupted run, or one with something to compare, does
// not.
func TestFailure(t *testing.T) {
	untrusted := errors.New("x509: certificate signed by unknown authority")
	failing := func(context.Context) (Sample, error) { return Sample{}, untrusted }
	httpKey, httpsKey := twoKeys()
	reuse := httpKey.with(DimConn, "reuse")
	tests := []struct {
		name    string
		keys    []Key
		failing []bool
		want    string // "" for no failure
	}{
		{"HTTPS all dropped", []Key{httpKey, httpsKey, reuse}, []bool{false, true, false}, "no HTTPS variant could be measured: https h1 TLS1.3: x509"},
		{"only the baseline", []Key{httpsKey, httpsKey.with(DimTLS, "1.2")}, []bool{false, true}, "nothing to compare with the baseline https h1 TLS1.3: https h1 TLS1.2: x509"},
		{"one left to compare", []Key{httpKey, httpsKey, reuse}, []bool{false, false, true}, ""},
		{"plain HTTP only", []Key{httpKey, reuse}, []bool{false, false}, ""},
	}
	for _, tt := range tests {
		var vs []Variant
		for i, k := range tt.keys {
			s := fixed(uint64(i+1), time.Millisecond, 0)
			if tt.failing[i] {
				s = failing
			}
			vs = append(vs, Variant{Key: k, Sampler: s})
		}
		res, err := Run(context.Background(), Config{Variants: vs, Runs: 3, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := res.Failure()
		if (got == nil) != (tt.want == "") || got != nil && (!strings.HasPrefix(got.Error(), tt.want) || !errors.Is(got, untrusted)) {
			t.Errorf("%s: Failure() = %v; want %q wrapping the variant's error", tt.name, got, tt.want)
		}
		if tt.want != "" {
			res.Stop = StopInterrupted
			if err := res.Failure(); err != nil {
				t.Errorf("%s, interrupted: Failure() = %v; want nil (the interruption is the news)", tt.name, err)
			}
		}
	}
}

// TestPrecisionBothSides: a run stopped for precision has every median's
// interval within ±precision of it on both sides. Latencies are skewed
// to the right, so their intervals are too: half the width within 5% let
// an interval reach 7% above its median.
func TestPrecisionBothSides(t *testing.T) {
	a, b := twoKeys()
	const precision = 0.05
	stopped := 0
	for seed := range uint64(40) {
		res, err := Run(context.Background(), Config{
			Variants: []Variant{
				{Key: a, Sampler: fixed(2*seed+1, 10*time.Millisecond, 2*time.Millisecond)},
				{Key: b, Sampler: fixed(2*seed+2, 20*time.Millisecond, 4*time.Millisecond)},
			},
			Precision: precision, MaxRuns: 60, Warmup: -1, Seed: seed + 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != StopPrecision {
			continue
		}
		stopped++
		for _, v := range res.Variants {
			m := v.Total.Median
			if v.Total.Lo < m*(1-precision) || v.Total.Hi > m*(1+precision) {
				t.Errorf("seed %d: %s stopped for precision after %d rounds with median %.3f, interval %.3f to %.3f (%+.1f%%, %+.1f%%); want within ±%.0f%%",
					seed, v.Name, res.Rounds, m, v.Total.Lo, v.Total.Hi, 100*(v.Total.Lo/m-1), 100*(v.Total.Hi/m-1), 100*precision)
			}
		}
	}
	if stopped == 0 {
		t.Error("no run stopped for precision; want some, for the test to tell anything")
	}
}

// TestNotesTooFewRuns: below 4 runs per variant no difference can be
// significant at 0.05, and the notes say so, in good English for one run.
func TestNotesTooFewRuns(t *testing.T) {
	a, b := twoKeys()
	for _, tt := range []struct {
		runs int
		want string
	}{
		{1, "with 1 run per variant no difference can be significant at alpha 0.05 (the smallest p-value is 1.000); use more runs (-n)"},
		{3, "with 3 runs per variant no difference can be significant at alpha 0.05 (the smallest p-value is 0.100); use more runs (-n)"},
		{4, ""},
	} {
		res, err := Run(context.Background(), Config{Variants: []Variant{
			{Key: a, Sampler: fixed(1, time.Millisecond, 0)}, {Key: b, Sampler: fixed(2, 2*time.Millisecond, 0)},
		}, Runs: tt.runs, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Notes(), "\n"); got != tt.want {
			t.Errorf("-n %d: notes %q; want %q", tt.runs, got, tt.want)
		}
	}
}
