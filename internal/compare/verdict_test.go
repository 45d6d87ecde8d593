package compare

import (
	"context"
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
	for _, alpha := range []float64{0.01, 0.05, 0.2} {
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
			var text strings.Builder
			if err := res.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if note := "intervals of the differences at " + percent(1-alpha); strings.Contains(text.String(), note) != (alpha != 0.05) {
				t.Errorf("alpha %v: report %q; want %q there when alpha is not 0.05", alpha, text.String(), note)
			}
			if d.Significant {
				sig++
				label := percent(1-alpha) + " CI"
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
	}{{0.95, "95%"}, {0.99, "99%"}, {0.995, "99.5%"}, {0.8, "80%"}} {
		if got := percent(tt.level); got != tt.want {
			t.Errorf("percent(%v) = %q; want %q", tt.level, got, tt.want)
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
