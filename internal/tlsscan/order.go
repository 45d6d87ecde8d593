package tlsscan

import (
	"context"
	"slices"
	"sync"
)

// A server that picks by its own order names, from any offer, the suite
// of the offer it prefers most. The classic way to read that order offers
// every suite not yet picked, one ClientHello after the other, as many
// round trips as the server has suites (twice that with TCP's). The order
// is found here from the picks the suite search already got, and from
// offers made side by side: each round guesses the whole order from the
// picks so far and offers, for every pair of neighbours in the guess that
// no pick yet put in order, the next few suites of the guess from the
// first of them (its favourite if the guess is right; see orderWindow). A
// pick proves the order of two neighbours when its offer held the second;
// when every pair is proven, the order is. Each round's picks prove pairs
// or show the guess wrong where no pick said otherwise, so that the next
// guess knows more: a good guess is proven in one round.

// orderWindow is how many suites of the guess, from the first of two
// neighbours, one offer holds. The whole rest of the guess would say
// little more: where the guess errs, the offers of most places before the
// error get the same pick from it. A few suites say where the neighbours
// go among the next ones.
const orderWindow = 4

// maxOrderRounds bounds the rounds of offers of orderByPicks; a server
// whose order takes more is read the classic way.
const maxOrderRounds = 12

// orderByPicks returns the accepted suites of version v in the server's
// order, found from picks (offers of the search with the server's pick,
// the first offer of every candidate among them) and offers of its own.
// hint returns an order to guess first, or nil (TLS 1.2's latest guess,
// for the versions before it, whose orders servers mostly keep); guessed
// is called with each round's guess and the number of its neighbours
// not yet proven, before the round's offers go out. ok is false
// when the picks contradict every order (the server's pick depends on
// more than the suites offered) or the order took more than
// maxOrderRounds rounds: the caller reads it the classic way.
func orderByPicks(ctx context.Context, p *prober, v uint16, cands, accepted []uint16, picks []pickedOffer, hint func() []uint16, guessed func(guess []uint16, unproven int)) (order []uint16, ok bool, err error) {
	if len(accepted) < 2 {
		return slices.Clone(accepted), true, nil
	}
	g := newPickGraph(cands, accepted)
	for _, o := range picks {
		g.add(o)
	}
	for round := 0; ; round++ {
		guess, ok := g.guess(hint())
		if !ok {
			return nil, false, nil
		}
		var offers [][]uint16
		for i := range len(guess) - 1 {
			if !g.proven(guess[i], guess[i+1]) {
				offers = append(offers, g.inCandOrder(guess[i:min(i+orderWindow, len(guess))]))
			}
		}
		guessed(guess, len(offers))
		if len(offers) == 0 {
			return guess, true, nil
		}
		if round == maxOrderRounds {
			return nil, false, nil
		}
		replies, err := sendAll(ctx, p, v, offers)
		if err != nil {
			return nil, false, err
		}
		for i, r := range replies {
			if r.hello == nil || r.hello.version != v || !slices.Contains(offers[i], r.hello.suite) {
				// An offer of accepted suites refused: the server
				// picks by more than the suites offered.
				return nil, false, nil
			}
			g.add(pickedOffer{offer: offers[i], pick: r.hello.suite})
		}
	}
}

// sendAll makes the offers side by side and returns their replies.
func sendAll(ctx context.Context, p *prober, v uint16, offers [][]uint16) ([]reply, error) {
	replies := make([]reply, len(offers))
	errs := make([]error, len(offers))
	var wg sync.WaitGroup
	for i, o := range offers {
		wg.Go(func() { replies[i], errs[i] = p.send(ctx, offerFor(v, o), false) })
	}
	wg.Wait()
	return replies, firstErr(errs)
}

// pickGraph holds what picks say of the order of the accepted suites:
// the pick of an offer is preferred to every other accepted suite of it.
type pickGraph struct {
	suites []uint16       // accepted, in the candidates' order
	index  map[uint16]int // of each accepted suite, in suites
	cand   map[uint16]int // of each candidate, in the candidates
	// above[i][j]: suite i is preferred to suite j, directly or through
	// others (kept closed under transitivity).
	above [][]bool
	// next[i][j]: a pick of suite i came from an offer that held suite j,
	// which proves their order when they are neighbours.
	next [][]bool
}

func newPickGraph(cands, accepted []uint16) *pickGraph {
	g := &pickGraph{index: map[uint16]int{}, cand: map[uint16]int{}}
	for i, id := range cands {
		g.cand[id] = i
	}
	g.suites = g.inCandOrder(accepted)
	for i, id := range g.suites {
		g.index[id] = i
	}
	n := len(accepted)
	g.above, g.next = make([][]bool, n), make([][]bool, n)
	for i := range n {
		g.above[i], g.next[i] = make([]bool, n), make([]bool, n)
	}
	return g
}

// add notes one pick.
func (g *pickGraph) add(o pickedOffer) {
	w, ok := g.index[o.pick]
	if !ok {
		return
	}
	for _, id := range o.offer {
		if l, ok := g.index[id]; ok && l != w {
			g.next[w][l] = true
			g.prefer(w, l)
		}
	}
}

// prefer notes that suite w is preferred to suite l, and all that
// follows from it.
func (g *pickGraph) prefer(w, l int) {
	if g.above[w][l] {
		return
	}
	n := len(g.suites)
	for a := range n {
		if a != w && !g.above[a][w] {
			continue
		}
		for b := range n {
			if b == l || g.above[l][b] {
				g.above[a][b] = true
			}
		}
	}
}

// proven reports whether a pick shows that a is preferred to b with no
// suite between them possible: a pick of a from an offer that held b.
func (g *pickGraph) proven(a, b uint16) bool { return g.next[g.index[a]][g.index[b]] }

// guess returns an order of the accepted suites that agrees with every
// pick: at each place, of the suites no other remaining suite is known to
// be preferred to, the one hint puts first, else the one that picks put
// highest (known to be preferred to more suites, and below fewer), then
// the first candidate. ok is false when the picks contradict each other.
func (g *pickGraph) guess(hint []uint16) ([]uint16, bool) {
	n := len(g.suites)
	for i := range n {
		if g.above[i][i] {
			return nil, false
		}
	}
	hintAt := func(i int) int {
		if at := slices.Index(hint, g.suites[i]); at >= 0 {
			return at
		}
		return len(hint)
	}
	// rank is twice the suites known above, plus those unknown: twice
	// the place the suite takes on average, were the unknown ones
	// above or below it alike.
	rank := make([]int, n)
	for i := range n {
		for j := range n {
			switch {
			case g.above[j][i]:
				rank[i] += 2
			case !g.above[i][j] && i != j:
				rank[i]++
			}
		}
	}
	placed := make([]bool, n)
	out := make([]uint16, 0, n)
	for range n {
		best := -1
		for i := range n {
			if placed[i] || g.belowRemaining(i, placed) {
				continue
			}
			if best < 0 || hintAt(i) < hintAt(best) || (hintAt(i) == hintAt(best) && rank[i] < rank[best]) {
				best = i
			}
		}
		placed[best] = true
		out = append(out, g.suites[best])
	}
	return out, true
}

// belowRemaining reports whether a suite not yet placed is known to be
// preferred to suite i.
func (g *pickGraph) belowRemaining(i int, placed []bool) bool {
	for j := range g.suites {
		if !placed[j] && g.above[j][i] {
			return true
		}
	}
	return false
}

// inCandOrder returns a copy of ids in the candidates' order.
func (g *pickGraph) inCandOrder(ids []uint16) []uint16 {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uint16) int { return g.cand[a] - g.cand[b] })
	return out
}
