package report

import (
	"math"
	"testing"
)

// TestTicksBounded: the ticks of any range are round, ordered and few,
// from a range too wide for a float64 to one too narrow for its steps.
func TestTicksBounded(t *testing.T) {
	for _, r := range [][2]float64{{0, 10}, {-3.2, 7.9}, {-1e308, 1e308}, {1e17, 1e17 + 8}, {0, math.Inf(1)}, {math.NaN(), 1}, {5, 5}} {
		ticks := spanTicks(r[0], r[1], 6)
		if len(ticks) > 14 {
			t.Errorf("spanTicks(%g, %g) = %d ticks; want at most 14", r[0], r[1], len(ticks))
		}
		for i := 1; i < len(ticks); i++ {
			if ticks[i] < ticks[i-1] {
				t.Errorf("spanTicks(%g, %g) = %v; want them in order", r[0], r[1], ticks)
			}
		}
	}
	if got := spanTicks(-3.2, 7.9, 6); len(got) < 3 || got[0] > -3.2+2 || got[len(got)-1] < 7.9-2 {
		t.Errorf("spanTicks(-3.2, 7.9) = %v; want ticks across the range", got)
	}
	lanes := []interval{{Name: "a", V: 1e308, Lo: -1e308, Hi: 1e308, Class: "sig"}, {Name: "b", V: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}}
	if c := intervalChart("t", "ms", "", lanes, true); len(c.Rects) != 1 {
		t.Errorf("intervalChart of extreme values: %d dots; want 1", len(c.Rects))
	}
}

// TestLTTB keeps the first and last points, n in all, and a spike.
func TestLTTB(t *testing.T) {
	var pts [][2]float64
	for i := range 1000 {
		v := 1.0
		if i == 437 {
			v = 50
		}
		pts = append(pts, [2]float64{float64(i), v})
	}
	got := lttb(pts, 200)
	if len(got) != 200 || got[0] != pts[0] || got[199] != pts[999] {
		t.Fatalf("lttb(1000 points, 200) = %d points from %v to %v; want 200 from the first to the last", len(got), got[0], got[len(got)-1])
	}
	spike := false
	for _, p := range got {
		spike = spike || p == pts[437]
	}
	if !spike {
		t.Errorf("lttb dropped the spike at 437")
	}
	if got := lttb(pts[:5], 200); len(got) != 5 {
		t.Errorf("lttb of 5 points to 200 = %d points; want the 5", len(got))
	}
}
