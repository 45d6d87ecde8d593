package tlsscan

import (
	"slices"
	"testing"
)

// TestPickGraph: the guess agrees with every pick and with the hint, and
// picks that contradict each other are seen.
func TestPickGraph(t *testing.T) {
	cands := []uint16{1, 2, 3, 4, 5}
	g := newPickGraph(cands, []uint16{1, 2, 3, 4})
	g.add(pickedOffer{offer: []uint16{1, 2, 3, 4, 5}, pick: 3})
	g.add(pickedOffer{offer: []uint16{1, 4}, pick: 4})
	guess, ok := g.guess([]uint16{2, 3, 1, 4})
	// 3 is above all, 4 above 1; the hint puts 2 before 1.
	if want := []uint16{3, 2, 4, 1}; !ok || !slices.Equal(guess, want) {
		t.Errorf("guess = %v, %v; want %v", guess, ok, want)
	}
	if !g.proven(3, 2) || !g.proven(4, 1) || g.proven(2, 4) {
		t.Errorf("proven(3, 2), proven(4, 1), proven(2, 4) = %v, %v, %v; want true, true, false", g.proven(3, 2), g.proven(4, 1), g.proven(2, 4))
	}
	g.add(pickedOffer{offer: []uint16{1, 3}, pick: 1})
	if _, ok := g.guess(nil); ok {
		t.Error("guess after 3 > 4 > 1 > 3: ok; want the contradiction seen")
	}
}
