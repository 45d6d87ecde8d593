package stats

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// floats decodes b as little-endian float64 values: NaN stays NaN, an
// infinity becomes +Inf, anything else is folded into [0, 1e6), the range
// of latencies in ms.
func floats(b []byte) []float64 {
	var out []float64
	for len(b) >= 8 {
		v := math.Abs(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		b = b[8:]
		if !math.IsInf(v, 0) {
			v = math.Mod(v, 1e6) // NaN stays NaN
		}
		out = append(out, v)
	}
	return out
}

// FuzzCompare checks the invariants of a comparison on arbitrary samples:
// a p-value in [0, 1], a shift inside its interval, an interval inside
// the range of the pairwise differences, and the same result with the
// samples swapped except for the sign; a sample with a NaN is an error
// (ErrNaN), returned at once, and one with an infinite value too (ErrInf)
// while its summary holds no NaN.
func FuzzCompare(f *testing.F) {
	enc := func(xs ...float64) []byte {
		var b []byte
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(enc(1, 2, 3, 4, 5, 6, 7), enc(4, 5, 6, 7, 8, 9, 10))
	f.Add(enc(5, 5, 5), enc(5, 5, 5, 5))
	f.Add(enc(1), enc(2))
	f.Add(enc(1, math.NaN(), 3), enc(2, 4))
	f.Add(enc(math.NaN()), enc(math.NaN()))
	f.Add(enc(1, math.Inf(1), math.Inf(1)), enc(2, 3))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		x, y := floats(a), floats(b)
		if len(x) == 0 || len(y) == 0 || len(x) > 80 || len(y) > 80 {
			return
		}
		c, err := Compare(x, y, 0.95)
		if slices.ContainsFunc(x, math.IsNaN) || slices.ContainsFunc(y, math.IsNaN) {
			if !errors.Is(err, ErrNaN) {
				t.Fatalf("Compare(%v, %v) error = %v; want ErrNaN", x, y, err)
			}
			return
		}
		if slices.ContainsFunc(x, isInf) || slices.ContainsFunc(y, isInf) {
			if !errors.Is(err, ErrInf) {
				t.Fatalf("Compare(%v, %v) error = %v; want ErrInf", x, y, err)
			}
			if s := Summarize(x, 0.95); math.IsNaN(s.Median) || math.IsNaN(s.P90) || math.IsNaN(s.P99) {
				t.Fatalf("Summarize(%v) = %+v; want no NaN", x, s)
			}
			return
		}
		if err != nil {
			t.Fatalf("Compare: %v", err)
		}
		if c.Test.P < 0 || c.Test.P > 1 || math.IsNaN(c.Test.P) {
			t.Fatalf("p = %v; want within [0, 1]", c.Test.P)
		}
		if iv := c.ShiftCI; iv.Valid() && (c.Shift < iv.Lo || c.Shift > iv.Hi || iv.Level < 0.95-1e-9) {
			t.Fatalf("shift %v outside its interval %+v", c.Shift, iv)
		}
		r, err := Compare(y, x, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Shift+c.Shift) > 1e-9*(1+math.Abs(c.Shift)) || math.Abs(r.Test.P-c.Test.P) > 1e-9 {
			t.Fatalf("swapped: shift %v, p %v; want %v, %v", r.Shift, r.Test.P, -c.Shift, c.Test.P)
		}
		if iv := MedianCI(x, 0.95); iv.Valid() && (iv.Lo > Median(x) || iv.Hi < Median(x)) {
			t.Fatalf("median %v outside its interval %+v", Median(x), iv)
		}
	})
}
