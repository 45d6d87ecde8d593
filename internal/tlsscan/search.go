package tlsscan

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// splitSearch finds every suite of cands the server accepts in version v,
// given firstPick, the server's pick from all of them. It goes fast for a
// server that follows the client's order, which picks the first suite of
// an offer that it accepts, so that the suites of an offer before its
// pick are refused: only those after the pick are offered again, cut in
// two halves offered side by side (the first offer's rest in the parts of
// rootParts), until no offer gets a pick. One offer of every candidate
// not found then confirms that the server accepts none of them, whatever
// order it follows; confirming, if not nil, is called with the suites
// found as that offer goes out, unless the picks so far showed that the
// server does not follow the client's order. A pick there shows it, and
// ends the search.
//
// That takes about twice as many ClientHellos as there are accepted
// suites, and about log2 of the candidates per part one after the other.
// It returns the suites found, in the candidates' order, and whether
// every pick was the first suite of its offer that the server accepts.
func splitSearch(ctx context.Context, p *prober, v uint16, cands []uint16, firstPick uint16, confirming func([]uint16)) ([]uint16, bool, error) {
	s := &suiteSearch{ctx: ctx, p: p, v: v, cands: cands, index: make(map[uint16]int, len(cands)), offers: map[uint16][]uint16{}}
	for i, id := range cands {
		s.index[id] = i
	}
	s.split(cands, firstPick)
	s.wg.Wait()
	if err := firstErr(s.errs); err != nil {
		return s.sorted(), s.clientOrder(), err
	}
	found := s.sorted()
	clientOrder := s.clientOrder()
	if clientOrder && confirming != nil {
		confirming(found)
	}
	rest := slices.DeleteFunc(slices.Clone(cands), func(id uint16) bool { return slices.Contains(found, id) })
	if len(rest) == 0 {
		return found, clientOrder, nil
	}
	r, err := p.send(ctx, offerFor(v, rest), false)
	if err != nil {
		return found, clientOrder, err
	}
	if r.hello != nil && r.hello.version == v && slices.Contains(rest, r.hello.suite) {
		return found, false, nil
	}
	return found, clientOrder, nil
}

// suiteSearch is the state of one splitSearch.
type suiteSearch struct {
	ctx   context.Context
	p     *prober
	v     uint16
	cands []uint16
	index map[uint16]int // of each candidate, in cands
	wg    sync.WaitGroup

	mu    sync.Mutex
	found []uint16
	// offers holds, per pick, the offer it came from.
	offers map[uint16][]uint16
	errs   []error
}

// search makes one offer and goes on from its pick.
func (s *suiteSearch) search(offer []uint16) {
	r, err := s.p.send(s.ctx, offerFor(s.v, offer), false)
	if err != nil {
		s.mu.Lock()
		s.errs = append(s.errs, err)
		s.mu.Unlock()
		return
	}
	if r.hello == nil || r.hello.version != s.v || !slices.Contains(offer, r.hello.suite) {
		return
	}
	s.split(offer, r.hello.suite)
}

// split notes the pick of an offer and offers the suites after it.
func (s *suiteSearch) split(offer []uint16, pick uint16) {
	s.mu.Lock()
	s.found = append(s.found, pick)
	s.offers[pick] = offer
	s.mu.Unlock()
	rest := offer[slices.Index(offer, pick)+1:]
	parts := [][]uint16{rest[:len(rest)/2], rest[len(rest)/2:]}
	if len(offer) == len(s.cands) {
		parts = rootParts(s.v, rest)
	}
	for _, part := range parts {
		if len(part) > 0 {
			s.wg.Go(func() { s.search(part) })
		}
	}
}

// sorted returns the suites found, in the candidates' order.
func (s *suiteSearch) sorted() []uint16 {
	found := slices.Clone(s.found)
	slices.SortFunc(found, func(a, b uint16) int { return s.index[a] - s.index[b] })
	return found
}

// clientOrder reports whether every pick was the first suite of its
// offer that the server accepts (of those found).
func (s *suiteSearch) clientOrder() bool {
	for pick, offer := range s.offers {
		for _, id := range offer {
			if s.index[id] >= s.index[pick] {
				break
			}
			if slices.Contains(s.found, id) {
				return false
			}
		}
	}
	return true
}

// searchParts is about how many parts the first offer's rest is cut in.
const searchParts = 8

// rootParts cuts the rest of the first offer, in the candidates' order,
// for the search's first level: by kind of key exchange and
// authentication, which servers enable and disable as a whole, each kind
// in parts of about len(rest)/searchParts suites; before TLS 1.2 the
// suites that only TLS 1.2 defines are one part of their own. A kind the
// server lacks costs one offer.
func rootParts(v uint16, rest []uint16) [][]uint16 {
	kinds := map[string][]uint16{}
	var order []string
	for _, id := range rest {
		k := suiteKind(v, id)
		if _, ok := kinds[k]; !ok {
			order = append(order, k)
		}
		kinds[k] = append(kinds[k], id)
	}
	var parts [][]uint16
	for _, k := range order {
		ids := kinds[k]
		n := 1
		if k != kindTLS12Only {
			n = max(1, (len(ids)*searchParts+len(rest)/2)/len(rest))
		}
		for i := range n {
			parts = append(parts, ids[i*len(ids)/n:(i+1)*len(ids)/n])
		}
	}
	return parts
}

// kindTLS12Only is the kind of the suites versions before TLS 1.2 cannot
// negotiate.
const kindTLS12Only = "TLS 1.2 only"

// suiteKind returns the key exchange and authentication of a suite as its
// name gives them (ECDHE_RSA, DH_anon, ...; empty for TLS 1.3 suites), or
// kindTLS12Only for a suite that only TLS 1.2 defines when v is older.
func suiteKind(v, id uint16) string {
	n := SuiteName(id)
	if v < VersionTLS12 && onlyTLS12(n) {
		return kindTLS12Only
	}
	kx, _, _ := strings.Cut(strings.TrimPrefix(n, "TLS_"), "_WITH_")
	if isTLS13Suite(id) {
		return ""
	}
	return kx
}

// onlyTLS12 reports the suites that TLS 1.2 defines and older versions
// cannot use: AEAD ciphers (GCM, CCM, ChaCha20-Poly1305) and SHA-2 MACs.
func onlyTLS12(name string) bool {
	for _, w := range []string{"_GCM_", "_CCM", "_CHACHA20_POLY1305_", "_SHA256", "_SHA384"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}
