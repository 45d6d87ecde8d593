package tlsscan

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// suiteSearch finds every suite of cands the server accepts in version v,
// from the first offer's pick, the server's pick from all of them
// (split(cands, firstPick), then finish). It goes fast for a server that
// follows the client's order, which picks the first suite of an offer
// that it accepts, so that the suites of an offer before its pick are
// refused: only those after the pick are offered again, cut in two halves
// offered side by side (the first offer's rest in the parts of
// rootParts), until no offer gets a pick. One offer of every candidate
// not found then confirms that the server accepts none of them, whatever
// order it follows; confirming, if not nil, is called with the suites
// found as that offer goes out, unless the picks so far showed that the
// server does not follow the client's order.
//
// A pick after a suite the server accepts (or disorder, when another
// offer showed it) shows that the server does not: from then on the
// search offers again every suite of an offer but its pick, those left
// out so far too, so that it finds every accepted suite of a server of
// either kind, and its offers' picks say much of the server's order (see
// orderByPicks).
//
// That takes about twice as many ClientHellos as there are accepted
// suites, and about log2 of the candidates per part one after the other.
// finish returns the suites found, in the candidates' order, and whether
// every pick was the first suite of its offer that the server accepts.
//
// A search can also start before the first offer's pick is known
// (start), which saves it a round of offers: the pick is then noted
// (firstPicked) when it comes.
type suiteSearch struct {
	ctx   context.Context
	p     *prober
	v     uint16
	cands []uint16
	index map[uint16]int // of each candidate, in cands
	wg    sync.WaitGroup

	// onPick, if set, is called with each suite found, and onFound
	// with all of them before the confirming offer goes out, once.
	onPick  func(uint16)
	onFound func([]uint16)

	mu      sync.Mutex
	found   []uint16
	refused []uint16 // offered where the server picked none
	offers  []pickedOffer
	errs    []error
	// anyOrder is set once the picks show that the server does not
	// follow the client's order: from then on the whole rest of an
	// offer is searched, not only the suites after its pick, and the
	// suites left before the picks so far are searched too.
	anyOrder bool
	// foundOnce says that onFound was called.
	foundOnce bool
}

// pickedOffer is an offer with the server's pick from it.
type pickedOffer struct {
	offer []uint16
	pick  uint16
	// skipped are the suites of offer before its pick that the search
	// left out while the server seemed to follow the client's order.
	skipped []uint16
}

func newSuiteSearch(ctx context.Context, p *prober, v uint16, cands []uint16) *suiteSearch {
	s := &suiteSearch{ctx: ctx, p: p, v: v, cands: slices.Clone(cands), index: make(map[uint16]int, len(cands))}
	for i, id := range cands {
		s.index[id] = i
	}
	return s
}

// start offers every candidate at once, in the parts of rootParts.
func (s *suiteSearch) start() {
	for _, part := range rootParts(s.v, s.cands) {
		if len(part) > 0 {
			s.wg.Go(func() { s.search(part) })
		}
	}
}

// firstPicked notes the pick of the first offer, of every candidate, for
// a search that started without it.
func (s *suiteSearch) firstPicked(pick uint16) { s.note(s.cands, pick, nil) }

// finish waits for the search's offers and confirms its result (see
// splitSearch). A pick from the confirming offer shows that the server
// does not follow the client's order: the search then goes on over the
// whole rest of every offer, and finish waits for it again.
func (s *suiteSearch) finish(confirming func([]uint16)) ([]uint16, bool, error) {
	for {
		s.wg.Wait()
		if err := firstErr(s.errs); err != nil {
			return s.sorted(), s.clientOrder(), err
		}
		found := s.sorted()
		clientOrder := s.clientOrder()
		if s.onFound != nil && !s.foundOnce {
			s.foundOnce = true
			s.onFound(found)
		}
		if clientOrder && confirming != nil {
			confirming(found)
		}
		rest := s.unknown(s.cands)
		if len(rest) == 0 {
			return found, clientOrder, nil
		}
		r, err := s.p.send(s.ctx, offerFor(s.v, rest), false)
		if err != nil {
			return found, clientOrder, err
		}
		if r.hello == nil || r.hello.version != s.v || !slices.Contains(rest, r.hello.suite) {
			return found, clientOrder, nil
		}
		s.disorder()
		s.split(rest, r.hello.suite)
	}
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
		s.mu.Lock()
		s.refused = append(s.refused, offer...)
		s.mu.Unlock()
		return
	}
	s.split(offer, r.hello.suite)
}

// follow searches a version before TLS 1.2 from firstPick, its first
// offer's pick, and the suites TLS 1.2's search finds: as servers mostly
// accept the same suites in the older versions (those the older versions
// define), it offers each alone as TLS 1.2's search finds it, and the
// other candidates together once that search ends, with confirming
// called on the suites guessed. When the guess is right that is the
// search; a pick among the others goes on as any (see split), and so
// does the whole search when TLS 1.2's did not run to its end.
func (s *suiteSearch) follow(firstPick uint16, tls12 *suiteHint, confirming func([]uint16)) ([]uint16, bool, error) {
	s.note(s.cands, firstPick, nil)
	guessed := []uint16{firstPick}
	for from := 0; ; {
		ids, final, useful, ok := tls12.next(s.ctx, from)
		if !ok {
			break
		}
		from += len(ids)
		for _, id := range ids {
			if id != firstPick && slices.Contains(s.cands, id) && suiteKind(s.v, id) != kindTLS12Only {
				guessed = append(guessed, id)
				s.wg.Go(func() { s.search([]uint16{id}) })
			}
		}
		if !final {
			continue
		}
		if !useful {
			s.split(s.cands, firstPick)
			break
		}
		others := slices.DeleteFunc(slices.Clone(s.cands), func(id uint16) bool { return slices.Contains(guessed, id) })
		if len(others) > 0 {
			s.wg.Go(func() { s.search(others) })
		}
		if confirming != nil {
			confirming(s.inOrder(guessed))
		}
		break
	}
	return s.finish(confirming)
}

// note keeps the pick of an offer, with the suites before it that its
// split leaves out if the server seems to follow the client's order, and
// reports whether it is known not to (then nothing is left out).
func (s *suiteSearch) note(offer []uint16, pick uint16, skipped []uint16) (anyOrder bool) {
	s.mu.Lock()
	isNew := !slices.Contains(s.found, pick)
	if isNew {
		s.found = append(s.found, pick)
	}
	o := pickedOffer{offer: offer, pick: pick}
	if !s.anyOrder {
		o.skipped = skipped
	}
	s.offers = append(s.offers, o)
	var resume [][]uint16
	if !s.anyOrder && s.disordered() {
		resume = s.takeSkipped()
	}
	anyOrder = s.anyOrder
	s.mu.Unlock()
	if isNew && s.onPick != nil {
		s.onPick(pick)
	}
	s.resume(resume)
	return anyOrder
}

// disorder notes that the server does not follow the client's order, and
// searches the suites left out so far.
func (s *suiteSearch) disorder() {
	s.mu.Lock()
	var resume [][]uint16
	if !s.anyOrder {
		resume = s.takeSkipped()
	}
	s.mu.Unlock()
	s.resume(resume)
}

// disordered reports whether a pick came after a suite the server
// accepts in its offer, which a server that follows the client's order
// never does. s.mu is held.
func (s *suiteSearch) disordered() bool {
	for _, o := range s.offers {
		for _, id := range o.offer {
			if id == o.pick {
				break
			}
			if slices.Contains(s.found, id) {
				return true
			}
		}
	}
	return false
}

// takeSkipped sets anyOrder and returns the suites left out of the
// search so far that it has not yet found or seen refused. s.mu is held.
func (s *suiteSearch) takeSkipped() [][]uint16 {
	s.anyOrder = true
	var out [][]uint16
	for i := range s.offers {
		if rest := s.unknownLocked(s.offers[i].skipped); len(rest) > 0 {
			out = append(out, rest)
		}
		s.offers[i].skipped = nil
	}
	return out
}

// resume searches the suites a split left out.
func (s *suiteSearch) resume(parts [][]uint16) {
	for _, part := range parts {
		s.wg.Go(func() { s.search(part) })
	}
}

// unknown returns the suites of ids neither found nor seen refused.
func (s *suiteSearch) unknown(ids []uint16) []uint16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unknownLocked(ids)
}

func (s *suiteSearch) unknownLocked(ids []uint16) []uint16 {
	return slices.DeleteFunc(slices.Clone(ids), func(id uint16) bool {
		return slices.Contains(s.found, id) || slices.Contains(s.refused, id)
	})
}

// split notes the pick of an offer and offers the suites after it, or,
// for a server that does not follow the client's order, all the others
// not yet found.
func (s *suiteSearch) split(offer []uint16, pick uint16) {
	i := slices.Index(offer, pick)
	rest := offer[i+1:]
	n := 2
	if s.note(offer, pick, offer[:i]) {
		// The rest holds accepted suites below the pick as likely as
		// refused ones: it is cut finer, for a shallower search.
		rest = s.unknown(slices.Delete(slices.Clone(offer), i, i+1))
		n = anyOrderParts
	}
	var parts [][]uint16
	for k := range n {
		parts = append(parts, rest[k*len(rest)/n:(k+1)*len(rest)/n])
	}
	if len(offer) == len(s.cands) {
		parts = rootParts(s.v, rest)
	}
	for _, part := range parts {
		if len(part) > 0 {
			s.wg.Go(func() { s.search(part) })
		}
	}
}

// picks returns the offers that got a pick, with their picks.
func (s *suiteSearch) picks() []pickedOffer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.offers)
}

// sorted returns the suites found, in the candidates' order.
func (s *suiteSearch) sorted() []uint16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inOrder(s.found)
}

// inOrder returns a copy of ids in the candidates' order.
func (s *suiteSearch) inOrder(ids []uint16) []uint16 {
	out := slices.Clone(ids)
	slices.SortFunc(out, func(a, b uint16) int { return s.index[a] - s.index[b] })
	return out
}

// clientOrder reports whether every pick was the first suite of its
// offer that the server accepts (of those found).
func (s *suiteSearch) clientOrder() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.anyOrder
}

// suiteHint passes the suites TLS 1.2's search finds, as it finds them,
// to the searches of the versions before it (see follow).
type suiteHint struct {
	mu     sync.Mutex
	suites []uint16
	// ordered is TLS 1.2's latest guess of the server's order, when the
	// server picks by its own; guessing is closed at the first, or when
	// TLS 1.2's scan ends without one.
	ordered  []uint16
	guessing chan struct{}
	once     sync.Once
	final    bool // no more suites come
	useful   bool // with final: the search ran to its end
	// changed is closed at each change, and replaced.
	changed chan struct{}
}

func newSuiteHint() *suiteHint {
	return &suiteHint{changed: make(chan struct{}), guessing: make(chan struct{})}
}

// setOrder passes on TLS 1.2's latest guess of the server's order.
func (h *suiteHint) setOrder(order []uint16) {
	h.mu.Lock()
	h.ordered = slices.Clone(order)
	h.mu.Unlock()
	h.once.Do(func() { close(h.guessing) })
}

// scanned says that TLS 1.2's scan ended.
func (h *suiteHint) scanned() { h.once.Do(func() { close(h.guessing) }) }

// order waits for TLS 1.2's first guess of the server's order, or the
// end of its scan, and returns its latest guess; nil when the server
// does not pick by its own order in TLS 1.2 or ctx ended first.
func (h *suiteHint) order(ctx context.Context) []uint16 {
	select {
	case <-h.guessing:
	case <-ctx.Done():
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.ordered)
}

// add passes on a suite found.
func (h *suiteHint) add(id uint16) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.final {
		h.suites = append(h.suites, id)
		h.signal()
	}
}

// end says that no more suites come; useful says whether the search ran
// to its end. Later calls do nothing.
func (h *suiteHint) end(useful bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.final {
		h.final, h.useful = true, useful
		h.signal()
	}
}

func (h *suiteHint) signal() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// next waits for suites after the first from, or for the end, and returns
// them, whether they are the last and whether the search ran to its end;
// ok is false when ctx ended first.
func (h *suiteHint) next(ctx context.Context, from int) (suites []uint16, final, useful, ok bool) {
	for {
		h.mu.Lock()
		if len(h.suites) > from || h.final {
			defer h.mu.Unlock()
			return slices.Clone(h.suites[from:]), h.final, h.useful, true
		}
		changed := h.changed
		h.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, false, false, false
		}
	}
}

// anyOrderParts is how many parts the rest of an offer is cut in, once the
// server is known not to follow the client's order.
const anyOrderParts = 4

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
