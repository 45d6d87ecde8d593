package tlsscan

import (
	"cmp"
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
		usual, openSSL := trial%2 == 0, trial%4 == 2
		if usual {
			slices.SortStableFunc(order, func(a, b uint16) int { return usualRank(a) - usualRank(b) })
		}
		if openSSL {
			slices.SortStableFunc(order, func(a, b uint16) int { return cmp.Or(usualRank(a)-usualRank(b), opensslRank(a)-opensslRank(b)) })
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
		if rounds > 6 || (usual && rounds > 4) || (openSSL && rounds > 2) {
			t.Errorf("trial %d (%d suites, usual order %v, OpenSSL's %v): %d rounds of offers", trial, len(order), usual, openSSL, rounds)
		}
	}
}

// TestGoRuleOrder: on simulated servers on Go's rule (Go's crypto/tls,
// which puts AES-GCM first when the first suite of the offer that it
// implements is an AES-GCM one, and ChaCha20 first otherwise; OpenSSL's
// PrioritizeChaCha, which puts ChaCha20 first when the offer's first suite
// is a ChaCha20 one), goRuleOrder reads from picks and offers side by
// side the order the classic way reads one offer after the other, in TLS
// 1.2 (the candidates lead with a CBC suite) and TLS 1.3 (with AES-GCM).
func TestGoRuleOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tls13 := range []bool{false, true} {
		cands := candidateSuites(tls13)
		known := goSuites(tls13)
		for trial := range 40 {
			openSSL := trial%2 == 1
			// An order of some of the suites Go implements and some
			// others, with two AES-GCM suites and a ChaCha20 one at
			// least, AES-GCM first.
			var order []uint16
			for !(countOf(order, isAESGCM) >= 2 && countOf(order, isChaCha) >= 1) {
				order = order[:0]
				for _, i := range rng.Perm(len(known))[:2+rng.IntN(len(known)-1)] {
					order = append(order, known[i])
				}
				for _, i := range rng.Perm(len(cands))[:rng.IntN(min(10, len(cands)))] {
					if !slices.Contains(order, cands[i]) {
						order = append(order, cands[i])
					}
				}
			}
			slices.SortStableFunc(order, func(a, b uint16) int { return usualRank(a) - usualRank(b) })
			// The other order: ChaCha20 before the first AES-GCM suite.
			chacha := slices.DeleteFunc(slices.Clone(order), isChaCha)
			at := slices.IndexFunc(chacha, isAESGCM)
			chacha = slices.Insert(chacha, at, slices.DeleteFunc(slices.Clone(order), func(id uint16) bool { return !isChaCha(id) })...)
			pick := func(offer []uint16) uint16 {
				if len(offer) == 0 {
					return 0
				}
				by := chacha
				if openSSL && !isChaCha(offer[0]) || !openSSL && goAESFirst(offer) {
					by = order
				}
				for _, id := range by {
					if slices.Contains(offer, id) {
						return id
					}
				}
				return 0
			}
			// The classic way.
			var want []uint16
			for rest := slices.Clone(cands); ; {
				p := pick(rest)
				if p == 0 {
					break
				}
				want = append(want, p)
				rest = slices.DeleteFunc(rest, func(id uint16) bool { return id == p })
			}
			rounds := 0
			ask := asker{max: 36, picks: func(_ context.Context, offers [][]uint16) ([]uint16, error) {
				rounds++
				var out []uint16
				for _, o := range offers {
					out = append(out, pick(o))
				}
				return out, nil
			}}
			picks := []pickedOffer{{offer: cands, pick: pick(cands)}}
			for i := 0; i < len(cands); i += 4 {
				part := cands[i:min(i+4, len(cands))]
				if p := pick(part); p != 0 {
					picks = append(picks, pickedOffer{offer: part, pick: p})
				}
			}
			accepted := slices.Clone(order)
			slices.SortFunc(accepted, func(a, b uint16) int { return slices.Index(cands, a) - slices.Index(cands, b) })
			got, ok, err := goRuleOrder(context.Background(), ask, cands, accepted, picks, pick(cands), func([]uint16) {})
			if err != nil || !ok || !slices.Equal(got, want) {
				t.Fatalf("TLS 1.3 %v, trial %d (OpenSSL %v): goRuleOrder = %04x, %v, %v; want %04x", tls13, trial, openSSL, got, ok, err, want)
			}
			if rounds > 6 {
				t.Errorf("TLS 1.3 %v, trial %d (%d suites): %d rounds of offers", tls13, trial, len(order), rounds)
			}
		}
	}
}

// goAESFirst reports whether the first suite of offer that Go implements
// is an AES-GCM one.
func goAESFirst(offer []uint16) bool {
	for _, id := range offer {
		if goKnown()[id] {
			return isAESGCM(id)
		}
	}
	return false
}

func countOf(ids []uint16, f func(uint16) bool) int {
	n := 0
	for _, id := range ids {
		if f(id) {
			n++
		}
	}
	return n
}
