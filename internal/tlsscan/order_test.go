package tlsscan

import (
	"context"
	"math/rand/v2"
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

// TestOrderByPicks: on servers that pick by an order of their own (random
// ones, and ones in the usual order: see usualRank), orderByPicks finds
// the order from the picks of the first offer and of a few parts (the
// search gets many more), for up to 40 suites in at most six rounds of
// offers, four when the order is the usual one (the classic way takes as
// many as there are suites).
func TestOrderByPicks(t *testing.T) {
	cands := candidateSuites(false)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		order := make([]uint16, 5+rng.IntN(36))
		for i, c := range rng.Perm(len(cands))[:len(order)] {
			order[i] = cands[c]
		}
		usual := trial%2 == 0
		if usual {
			slices.SortStableFunc(order, func(a, b uint16) int { return usualRank(a) - usualRank(b) })
		}
		pick := func(offer []uint16) uint16 {
			best := -1
			for _, id := range offer {
				if i := slices.Index(order, id); i >= 0 && (best < 0 || i < best) {
					best = i
				}
			}
			if best < 0 {
				return 0
			}
			return order[best]
		}
		rounds := 0
		ask := asker{max: 36, picks: func(_ context.Context, offers [][]uint16) ([]uint16, error) {
			rounds++
			if len(offers) > 36 {
				t.Errorf("a round of %d offers; want at most 36", len(offers))
			}
			var out []uint16
			for _, o := range offers {
				out = append(out, pick(o))
			}
			return out, nil
		}}
		picks := []pickedOffer{{offer: cands, pick: pick(cands)}}
		for i := 0; i < len(cands); i += 12 {
			part := cands[i:min(i+12, len(cands))]
			if p := pick(part); p != 0 {
				picks = append(picks, pickedOffer{offer: part, pick: p})
			}
		}
		accepted := slices.Clone(order)
		slices.SortFunc(accepted, func(a, b uint16) int { return slices.Index(cands, a) - slices.Index(cands, b) })
		got, ok, err := orderByPicks(context.Background(), ask, cands, accepted, picks,
			func() []uint16 { return nil }, func([]uint16, int) {})
		if err != nil || !ok || !slices.Equal(got, order) {
			t.Fatalf("trial %d: orderByPicks = %04x, %v, %v; want %04x", trial, got, ok, err, order)
		}
		if rounds > 6 || (usual && rounds > 4) {
			t.Errorf("trial %d (%d suites, usual order %v): %d rounds of offers", trial, len(order), usual, rounds)
		}
	}
}
