package tlsscan

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
)

// A server that picks by its own order names, from any offer, the suite
// of the offer it prefers most. The classic way to read that order offers
// every suite not yet picked, one ClientHello after the other, as many
// round trips as the server has suites (twice that with TCP's). The order
// is found here from the picks the suite search already got, and from
// offers made side by side: each round guesses the whole order from the
// picks so far (and from how servers usually order suites, as far as the
// picks agree: see usualRank) and offers every pair of suites close in
// the guess whose order no pick yet says (see orderBand), at most three
// quarters of the connections audit keeps open at once, so that a round
// takes one round of connections. A pick proves the order of two
// neighbours when its offer held the second; when every pair of
// neighbours is proven, the order is. Each round learns the order of a
// pair at least (the first neighbours not yet proven are offered), so
// that the rounds end; a good guess is proven in one. A server whose
// order takes more rounds than it has suites, as many as the classic way
// takes offers, is read the classic way.

// orderBand is how far apart two suites of the guess may be for an offer
// of the two to go out when no pick yet says which goes first: the
// neighbours, whose order proves the guess, and the next ones, where the
// guess, built on picks that say little of most pairs, errs most. An
// offer of a longer stretch of the guess would say less: where the guess
// errs, it mostly gets the one suite put too low from every place before
// it.
const orderBand = 2

// orderByPicks returns the accepted suites in the server's order, found
// from picks (offers of the search with the server's pick, the first
// offer of every candidate among them) and offers ask makes.
// hint returns an order to guess first, or nil (TLS 1.2's latest guess,
// for the versions before it, whose orders servers mostly keep); guessed
// is called with each round's guess and the number of its neighbours
// not yet proven, before the round's offers go out. ok is false
// when the picks contradict every order (the server's pick depends on
// more than the suites offered) or the order took more rounds than
// there are suites: the caller reads it the classic way.
func orderByPicks(ctx context.Context, ask asker, cands, accepted []uint16, picks []pickedOffer, hint func() []uint16, guessed func(guess []uint16, unproven int)) (order []uint16, ok bool, err error) {
	if len(accepted) < 2 {
		return slices.Clone(accepted), true, nil
	}
	g := newPickGraph(cands, accepted)
	for _, o := range picks {
		g.add(o)
	}
	stuck, lastUnproven := 0, 0
	confirmed := false
	for round := 0; ; round++ {
		h := hint()
		guess, ok := g.guess(h)
		if !ok {
			return nil, false, nil
		}
		unproven := 0
		for i := range len(guess) - 1 {
			if !g.proven(guess[i], guess[i+1]) {
				unproven++
			}
		}
		guessed(guess, unproven)
		if unproven == 0 {
			return guess, true, nil
		}
		// A guess from another version's order is mostly right: its
		// neighbours alone are offered, and so are a guess's whose
		// round before picked as it said every time. A round that
		// proved no more neighbours than the one before offers pairs
		// further apart.
		band := orderBand
		if h != nil || confirmed {
			band = 1
		}
		if round > 0 && unproven >= lastUnproven {
			stuck++
		}
		band += stuck
		lastUnproven = unproven
		offers := g.unknownPairs(guess, band, ask.max)
		if round == len(accepted) {
			return nil, false, nil
		}
		picked, err := ask.picks(ctx, offers)
		if err != nil {
			return nil, false, err
		}
		confirmed = true
		for i, pick := range picked {
			if slices.Index(guess, pick) > slices.Index(guess, offers[i][0]) || slices.Index(guess, pick) > slices.Index(guess, offers[i][len(offers[i])-1]) {
				confirmed = false
			}
			if !slices.Contains(offers[i], pick) {
				// An offer of accepted suites refused: the server
				// picks by more than the suites offered.
				return nil, false, nil
			}
			g.add(pickedOffer{offer: offers[i], pick: pick})
		}
	}
}

// asker makes the offers of orderByPicks.
type asker struct {
	// picks makes offers side by side and returns the server's pick
	// from each, 0 for none.
	picks func(ctx context.Context, offers [][]uint16) ([]uint16, error)
	// max is the most offers of a round; 0 or less for no bound.
	max int
}

// proberAsker makes the offers of orderByPicks in version v with p, at
// most three quarters of p's slots in a round.
func proberAsker(p *prober, v uint16) asker {
	return asker{max: p.dialer.slots.size() * 3 / 4, picks: func(ctx context.Context, offers [][]uint16) ([]uint16, error) {
		picks := make([]uint16, len(offers))
		errs := make([]error, len(offers))
		var wg sync.WaitGroup
		for i, o := range offers {
			wg.Go(func() {
				r, err := p.send(ctx, offerFor(v, o), false)
				if r.hello != nil && r.hello.version == v {
					picks[i] = r.hello.suite
				}
				errs[i] = err
			})
		}
		wg.Wait()
		return picks, firstErr(errs)
	}}
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

// unknownPairs returns the offers of a round: the pairs of suites at most
// band apart in guess whose order no pick says, the neighbours
// first, in the candidates' order, at most max of them (all when max is
// 0 or less): a round of more than the connections audit keeps open at
// once would take twice as long.
func (g *pickGraph) unknownPairs(guess []uint16, band, max int) [][]uint16 {
	var pairs [][]uint16
	for d := 1; d <= band; d++ {
		for i := 0; i+d < len(guess); i++ {
			if max > 0 && len(pairs) == max {
				return pairs
			}
			if !g.known(guess[i], guess[i+d]) {
				pairs = append(pairs, g.inCandOrder([]uint16{guess[i], guess[i+d]}))
			}
		}
	}
	return pairs
}

// known reports whether the picks say which of a and b is preferred.
func (g *pickGraph) known(a, b uint16) bool {
	i, j := g.index[a], g.index[b]
	return g.above[i][j] || g.above[j][i]
}

// guess returns an order of the accepted suites that agrees with every
// pick: at each place, of the suites no other remaining suite is known to
// be preferred to, the one hint puts first, else the one servers usually
// put first if the picks so far agree with that (see usualRank, then
// opensslRank among suites of the same usual rank), else
// the one that picks put highest (known to be preferred to more suites,
// and below fewer), then the first candidate. ok is false when the picks
// contradict each other.
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
	usual, finer := func(int) int { return 0 }, func(int) int { return 0 }
	if g.usualAgrees(usualRank, nil) {
		usual = func(i int) int { return usualRank(g.suites[i]) }
		if g.usualAgrees(opensslRank, usualRank) {
			finer = func(i int) int { return opensslRank(g.suites[i]) }
		}
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
			if best < 0 || cmp.Or(cmp.Compare(hintAt(i), hintAt(best)), cmp.Compare(usual(i), usual(best)), cmp.Compare(finer(i), finer(best)), cmp.Compare(rank[i], rank[best])) < 0 {
				best = i
			}
		}
		placed[best] = true
		out = append(out, g.suites[best])
	}
	return out, true
}

// usualAgrees reports whether the picks so far agree with rank: in 19 of
// 20 pairs of suites of different ranks whose order they say, at least;
// if within is not nil, only pairs of the same rank by within count.
func (g *pickGraph) usualAgrees(rank, within func(uint16) int) bool {
	agree, disagree := 0, 0
	for i, a := range g.suites {
		for j, b := range g.suites {
			if !g.above[i][j] || (within != nil && within(a) != within(b)) {
				continue
			}
			switch ra, rb := rank(a), rank(b); {
			case ra < rb:
				agree++
			case ra > rb:
				disagree++
			}
		}
	}
	return agree > 0 && agree >= 19*disagree
}

// usualRank ranks a suite as servers mostly order theirs: forward-secret
// key exchanges (ECDHE and DHE alike, OpenSSL mixes them) before the
// others, and within each AEAD ciphers before CBC with SHA-2, then with
// SHA-1, then the rest. The
// guess follows it only as far as the picks agree (see usualAgrees): it
// saves rounds of offers on such a server, and costs none on another.
func usualRank(id uint16) int {
	n := SuiteName(id)
	kx := 1
	switch k := suiteKind(VersionTLS12, id); {
	case k == "", strings.HasPrefix(k, "ECDHE_"), strings.HasPrefix(k, "DHE_"), k == "ECDH_anon", k == "DH_anon":
		kx = 0
	}
	mac := 3
	switch {
	case strings.Contains(n, "_GCM_") || strings.Contains(n, "_CCM") || strings.Contains(n, "_CHACHA20_POLY1305_"):
		mac = 0
	case strings.HasSuffix(n, "_SHA256") || strings.HasSuffix(n, "_SHA384"):
		mac = 1
	case strings.HasSuffix(n, "_SHA"):
		mac = 2
	}
	return kx*4 + mac
}

// opensslRank ranks a suite among those of the same usualRank as
// OpenSSL orders its cipher lists (ALL, HIGH, ...): the stronger cipher
// (256-bit keys before 128) first, then authenticated key exchanges
// before anonymous ones, then AES-GCM, ChaCha20, AES-CCM-8, AES-CCM,
// AES, ARIA, Camellia, then ECDHE before DHE. The guess follows it only
// as far as the picks agree, as with usualRank.
func opensslRank(id uint16) int {
	n := SuiteName(id)
	bits := 2
	switch {
	case strings.Contains(n, "_256_") || strings.Contains(n, "CHACHA20"):
		bits = 0
	case strings.Contains(n, "_128_"):
		bits = 1
	}
	anon := 0
	if strings.Contains(n, "_anon_") {
		anon = 1
	}
	family := 7
	for i, f := range []string{"_AES_*_GCM", "_CHACHA20_", "_AES_*_CCM_8", "_AES_*_CCM", "_AES_", "_ARIA_", "_CAMELLIA_"} {
		if pre, suf, ok := strings.Cut(f, "*"); ok && strings.Contains(n, pre) && strings.Contains(n, suf) || !ok && strings.Contains(n, f) {
			family = i
			break
		}
	}
	kx := 2
	switch k := suiteKind(VersionTLS12, id); {
	case strings.HasPrefix(k, "ECDH"):
		kx = 0
	case strings.HasPrefix(k, "DH"):
		kx = 1
	}
	return bits*1000 + anon*100 + family*10 + kx
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

// A server on Go's rule (see aesGCMIfClientFirst) picks by its own order
// or, when the offer leads with a suite of some kind, by another that
// differs only in the order of the AES-GCM and ChaCha20 suites: Go's
// crypto/tls puts AES-GCM first when the first suite of the offer that it
// implements is an AES-GCM one, ChaCha20 first otherwise; OpenSSL's
// PrioritizeChaCha puts ChaCha20 first when the offer's first suite is a
// ChaCha20 one. The classic way's offers, every candidate not yet
// picked, mostly lead with suites of one kind all the way (see
// leadKind): goRuleOrder reads the same order from picks (see
// orderByPicks), of offers that lead with a suite of that kind or whose
// pick the lead does not change.

// Kinds of the suite an offer leads with, for Go's rule.
const (
	leadOther  = iota // a ChaCha20 suite, or one Go does not implement
	leadPlain         // one Go implements, neither AES-GCM nor ChaCha20
	leadAESGCM        // an AES-GCM suite Go implements
)

// goRuleOrder returns the accepted suites in the order the classic way
// reads from a server on Go's rule, from the picks of offers that lead
// as the candidates do or whose pick the lead does not change, and
// offers ask makes, each arranged to lead so (see leadFor). guessed is
// called with each round's guess. ok is false when the candidates lead
// with a suite of neither kind, the picks contradict every order, the
// order is not what the classic way would read (some of its offers lead
// otherwise and hold suites whose order the lead changes), or its first
// suite is not first, the pick from every candidate: the caller reads it
// the classic way.
func goRuleOrder(ctx context.Context, ask asker, cands, accepted []uint16, picks []pickedOffer, first uint16, guessed func([]uint16)) (order []uint16, ok bool, err error) {
	kind := leadKind(cands)
	if kind == leadOther {
		return nil, false, nil
	}
	// alike reports whether the server picks from offer as from one that
	// leads as the candidates do.
	alike := func(offer []uint16) bool {
		return leadKind(offer) == kind || !leadMatters(offer, accepted)
	}
	var kept []pickedOffer
	for _, o := range picks {
		if alike(o.offer) {
			kept = append(kept, o)
		}
	}
	// A suite of the kind that the server refuses leads an offer that
	// has none of its own; else one it accepts that the latest guess
	// puts last (if it is not below the offer's, the server picks it
	// and orderByPicks gives up).
	var refused uint16
	for _, id := range cands {
		if suiteLeadKind(id) == kind && !slices.Contains(accepted, id) {
			refused = id
			break
		}
	}
	var latest []uint16
	led := asker{max: ask.max, picks: func(ctx context.Context, offers [][]uint16) ([]uint16, error) {
		lead := refused
		if lead == 0 {
			for _, id := range slices.Backward(latest) {
				if suiteLeadKind(id) == kind {
					lead = id
					break
				}
			}
		}
		arranged := make([][]uint16, len(offers))
		for i, o := range offers {
			arranged[i] = o
			if !alike(o) {
				if arranged[i] = leadFor(o, kind, lead); !alike(arranged[i]) {
					return nil, errNoLead
				}
			}
		}
		return ask.picks(ctx, arranged)
	}}
	order, ok, err = orderByPicks(ctx, led, cands, accepted, kept, func() []uint16 { return nil }, func(guess []uint16, _ int) {
		latest = guess
		guessed(guess)
	})
	if errors.Is(err, errNoLead) {
		return nil, false, nil
	}
	if err != nil || !ok || len(order) == 0 || order[0] != first {
		return nil, false, err
	}
	rest := slices.Clone(cands)
	for _, id := range order {
		if !alike(rest) {
			return nil, false, nil
		}
		rest = slices.DeleteFunc(rest, func(s uint16) bool { return s == id })
	}
	return order, true, nil
}

// errNoLead says that an offer of goRuleOrder could not be led by a suite
// of the kind the candidates lead with.
var errNoLead = errors.New("no suite to lead the offer")

// goKnown holds the suites Go implements, of every version.
var goKnown = sync.OnceValue(func() map[uint16]bool {
	known := map[uint16]bool{}
	for _, id := range append(goSuites(false), goSuites(true)...) {
		known[id] = true
	}
	return known
})

// suiteLeadKind returns the kind of an offer that leads with suite id.
func suiteLeadKind(id uint16) int {
	switch {
	case !goKnown()[id] || isChaCha(id):
		return leadOther
	case isAESGCM(id):
		return leadAESGCM
	}
	return leadPlain
}

// leadKind returns the kind of suite offer leads with.
func leadKind(offer []uint16) int {
	if len(offer) == 0 {
		return leadOther
	}
	return suiteLeadKind(offer[0])
}

// leadMatters reports whether the lead of offer may change a pick of
// Go's rule from it: whether it holds an accepted AES-GCM suite and an
// accepted ChaCha20 one.
func leadMatters(offer, accepted []uint16) bool {
	has := func(f func(uint16) bool) bool {
		return slices.ContainsFunc(offer, func(id uint16) bool { return f(id) && slices.Contains(accepted, id) })
	}
	return has(isAESGCM) && has(isChaCha)
}

// leadFor returns offer led by a suite of kind: its first one of the
// kind, moved first, else lead (if not 0) before it all.
func leadFor(offer []uint16, kind int, lead uint16) []uint16 {
	i := slices.IndexFunc(offer, func(id uint16) bool { return suiteLeadKind(id) == kind })
	switch {
	case i == 0:
		return offer
	case i > 0:
		out := append([]uint16{offer[i]}, offer[:i]...)
		return append(out, offer[i+1:]...)
	case lead != 0 && !slices.Contains(offer, lead):
		return append([]uint16{lead}, offer...)
	}
	return offer
}
