package tlsscan

import (
	"context"
	"crypto/tls"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/httpslab/httpslab/internal/transport"
)

// VersionResult is what enumeration found for one protocol version.
type VersionResult struct {
	Version uint16 `json:"version"`
	Name    string `json:"name"`
	// Supported is true when the server answered with this version.
	Supported bool `json:"supported"`
	// Suites are the accepted cipher suites, in the server's order of
	// preference when ServerOrder is true, else in the order audit offered.
	Suites []Suite `json:"suites,omitempty"`
	// ServerOrder is true when the server picks by its own preference.
	ServerOrder bool `json:"server_order"`
	// AESGCMIfClientFirst is true when the server picks by its own order
	// but puts AES-GCM first only for a client whose first suite is
	// AES-GCM, and ChaCha20-Poly1305 first for the others: Go's crypto/tls
	// on a machine with AES hardware (Caddy, the embedded server), which
	// takes a client that lists AES-GCM first to have AES hardware too.
	AESGCMIfClientFirst bool `json:"aes_gcm_if_client_first,omitempty"`
}

// GroupResult is one key-exchange group the server accepts.
type GroupResult struct {
	Version uint16 `json:"version"`
	ID      uint16 `json:"id"`
	Name    string `json:"name"`
	// DHBits is the prime size for DHE key exchange (TLS 1.2 and older).
	DHBits int `json:"dh_bits,omitempty"`
}

// Enumeration is the handshake-level inventory of a server.
type Enumeration struct {
	Versions []VersionResult `json:"versions"`
	Groups   []GroupResult   `json:"groups"`
	// HelloRetry is true when a client that sends only an X25519 key share
	// (as browsers and Go do first) gets a HelloRetryRequest: +1 round trip.
	HelloRetry bool `json:"hello_retry"`
	// HelloRetryGroup is the group the server asked for instead.
	HelloRetryGroup string `json:"hello_retry_group,omitempty"`
	// TLS12GroupOrder says whose order picks the ECDHE group before TLS
	// 1.3: GroupOrderServer (TLS12Group is the server's first),
	// GroupOrderClient, or empty when fewer than two groups were found.
	TLS12GroupOrder string `json:"tls12_group_order,omitempty"`
	TLS12Group      string `json:"tls12_group,omitempty"`
	// DHBits is the size of the prime the server uses for DHE suites
	// when the client names no finite-field group (RFC 7919), as every
	// client but a few does: the ssl_dhparam prime (0: no DHE suite).
	DHBits int `json:"dh_bits,omitempty"`
}

// Supported returns the versions the server accepts, oldest first.
func (e *Enumeration) Supported() []uint16 {
	var out []uint16
	for _, v := range e.Versions {
		if v.Supported {
			out = append(out, v.Version)
		}
	}
	return out
}

// Version returns the result for v, or nil.
func (e *Enumeration) Version(v uint16) *VersionResult {
	for i := range e.Versions {
		if e.Versions[i].Version == v {
			return &e.Versions[i]
		}
	}
	return nil
}

// scanVersions are the versions audit asks about, oldest first.
var scanVersions = []uint16{VersionSSL30, VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13}

// enumerate finds versions, suites, their order and groups. Versions are
// scanned in parallel; within a version the suites are found by offering
// all remaining candidates and removing the one the server picks. On an
// error (the server cannot be reached, ctx ended) it returns what was
// found so far with the error. As soon as the first offer of every version
// has been answered, which says the versions the server accepts, it calls
// versionsKnown (if not nil) with them, oldest first, once.
func enumerate(ctx context.Context, p *prober, versionsKnown func([]uint16)) (*Enumeration, error) {
	e := &Enumeration{Versions: make([]VersionResult, len(scanVersions))}
	var wg, firsts sync.WaitGroup
	errs := make([]error, len(scanVersions)+1)
	accepts := make([]bool, len(scanVersions))
	firsts.Add(len(scanVersions))
	tls12 := newSuiteHint()
	// TLS 1.2's group order is asked at the start, before the searches'
	// offers: the groups its two offers get are accepted, and the group
	// scan does not ask for them again, so that it costs no round trip.
	var order groupOrder
	var orderDone sync.WaitGroup
	orderDone.Go(func() { order = probeGroupOrder(withPriority(ctx, priorityLongSearch), p, VersionTLS12) })
	for i, v := range scanVersions {
		// TLS 1.2 has the most suites, and the longest search.
		ctx := withPriority(ctx, prioritySearch)
		if v == VersionTLS12 {
			ctx = withPriority(ctx, priorityLongSearch)
		}
		wg.Go(func() {
			e.Versions[i], errs[i] = scanVersion(ctx, p, v, tls12, func(ok bool) {
				accepts[i] = ok
				firsts.Done()
			})
		})
	}
	// The groups are scanned as soon as the versions are known.
	var groupsErr error
	wg.Go(func() {
		firsts.Wait()
		var vs []uint16
		for i, ok := range accepts {
			if ok {
				vs = append(vs, scanVersions[i])
			}
		}
		if versionsKnown != nil {
			versionsKnown(vs)
		}
		// No offer waits for the group scan's: they take the slots
		// the searches leave.
		orderDone.Wait()
		e.Groups, groupsErr = scanGroups(withPriority(ctx, priorityLeaf), p, vs, order.picked[:])
		if groupsErr == nil && slices.Contains(vs, VersionTLS12) {
			e.TLS12GroupOrder, e.TLS12Group, groupsErr = order.result(e.Groups)
		}
	})
	wg.Go(func() { e.HelloRetry, e.HelloRetryGroup, errs[len(scanVersions)] = checkHelloRetry(ctx, p) })
	// The DH offer of TLS 1.2, the version whose DHE suites most servers
	// have, is made at once, with every DHE suite: a server picks the
	// same suite from it as from its accepted DHE suites alone.
	var dh12 reply
	var dh12Err error
	wg.Go(func() { dh12, dh12Err = p.send(ctx, dhOffer(VersionTLS12, dheSuites(candidateSuites(false))), true) })
	wg.Wait()
	if err := firstErr(append(errs, groupsErr)); err != nil {
		return e, err
	}
	var err error
	e.DHBits, err = scanDH(ctx, p, e, dh12, dh12Err)
	return e, err
}

// scanDH returns the prime size of the server's DHE key exchange in the
// newest version before TLS 1.3 with DHE suites, offering only elliptic
// curve groups, so that the server uses its own prime; 0 without DHE.
// dh12 is the answer to TLS 1.2's offer, already made.
func scanDH(ctx context.Context, p *prober, e *Enumeration, dh12 reply, dh12Err error) (int, error) {
	for i := len(e.Versions) - 1; i >= 0; i-- {
		v := e.Versions[i]
		var ids []uint16
		for _, s := range v.Suites {
			ids = append(ids, s.ID)
		}
		dhe := dheSuites(ids)
		if v.Version == VersionTLS13 || len(dhe) == 0 {
			continue
		}
		r, err := dh12, dh12Err
		if v.Version != VersionTLS12 || err != nil || r.hello == nil || r.hello.version != VersionTLS12 || r.kex == nil {
			r, err = p.send(ctx, dhOffer(v.Version, dhe), true)
		}
		if err != nil || r.kex == nil {
			return 0, err
		}
		return r.kex.dhBits, nil
	}
	return 0, nil
}

// dheSuites returns the suites of ids with a finite-field DH key exchange.
func dheSuites(ids []uint16) []uint16 {
	var dhe []uint16
	for _, id := range ids {
		if n := SuiteName(id); strings.Contains(n, "_DHE_") || strings.Contains(n, "_DH_anon_") {
			dhe = append(dhe, id)
		}
	}
	return dhe
}

// dhOffer is the ClientHello of version v that asks for the server's own
// DH prime: DHE suites, and only elliptic curve groups.
func dhOffer(v uint16, dhe []uint16) clientHello {
	var ec []tls.CurveID
	for _, g := range allGroups {
		if ffdheBits[g] == 0 {
			ec = append(ec, g)
		}
	}
	return clientHello{version: v, suites: dhe, groups: ec}
}

func firstErr(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// offerFor returns the ClientHello that enumerates suites of version v.
func offerFor(v uint16, suites []uint16) clientHello {
	h := clientHello{version: v, suites: suites}
	if v == VersionTLS13 {
		h.keyShares = []tls.CurveID{tls.X25519, tls.CurveP256}
	}
	return h
}

// scanVersion finds the suites of version v. The classic way offers all
// remaining candidates and removes the one the server picks, one
// ClientHello after the other; its result is the list of picks. A server
// that follows the client's order picks, from any offer, the first suite
// it accepts, so the picks come out in the candidates' order. The search
// below (suiteSearch) uses that to run in parallel, and keeps its result
// when the server behaved so on every offer and in the order checks. A
// server that picks by its own order gets the same list as the classic
// way would give it, only sooner: the search finds its suites in any
// order, and their order is read from the picks (ownOrder, or
// goRuleOwnOrder for a server on Go's rule); only a server whose picks
// agree with no one order is read the classic way.
// The first offer says whether the server accepts v at all: supported is
// called with that, once. TLS 1.2's search tells tls12 the suites it
// found, and its order; the versions before it check those first (see
// follow and orderByPicks).
func scanVersion(ctx context.Context, p *prober, v uint16, tls12 *suiteHint, supported func(bool)) (VersionResult, error) {
	res := VersionResult{Version: v, Name: tls.VersionName(v)}
	cands := candidateSuites(v == VersionTLS13)
	if v == VersionTLS12 {
		defer tls12.scanned()
		defer tls12.end(false)
	}
	// TLS 1.2's search, the longest, starts beside the first offer,
	// which most servers answer with a pick.
	// Its offers' notes count once the server has the version.
	var search *suiteSearch
	var notes *heldNotes
	reversed := make(chan uint16, 1)
	stopSearch := func() {}
	if v == VersionTLS12 {
		var searchCtx context.Context
		searchCtx, stopSearch = context.WithCancel(ctx)
		searchCtx, notes = holdNotes(searchCtx)
		search = newSuiteSearch(searchCtx, p, v, cands)
		search.onPick = tls12.add
		search.onFound = func([]uint16) { tls12.end(true) }
		search.start()
		// Beside the first offer goes one of every candidate in
		// reverse: a server that picks the same suite from both picks
		// by its own order, and the search looks at the whole of each
		// offer from then on.
		rev := slices.Clone(cands)
		slices.Reverse(rev)
		go func() {
			var pick uint16
			if r, err := p.send(searchCtx, offerFor(v, rev), false); err == nil && r.hello != nil && r.hello.version == v {
				pick = r.hello.suite
			}
			reversed <- pick
		}()
	}
	defer stopSearch()
	first, err := p.send(ctx, offerFor(v, cands), false)
	picked := func(r reply, offered []uint16) bool {
		return r.hello != nil && r.hello.version == v && slices.Contains(offered, r.hello.suite)
	}
	supported(err == nil && picked(first, cands))
	if err != nil || !picked(first, cands) {
		if search != nil {
			stopSearch()
			search.wg.Wait()
		}
		return res, err
	}
	// The order checks go out with the search's confirming offer, on
	// the suites found before it, which are all when it gets no pick.
	var checked []uint16
	var serverOrd, gcmIfFirst bool
	var orderErr error
	var orderDone sync.WaitGroup
	confirming := func(found []uint16) {
		if len(found) >= 2 && !slices.Equal(found, checked) {
			orderDone.Wait()
			checked = found
			orderDone.Go(func() { serverOrd, gcmIfFirst, orderErr = orderChecks(ctx, p, v, found) })
		}
	}
	var accepted []uint16
	var clientOrder bool
	if search == nil {
		search = newSuiteSearch(ctx, p, v, cands)
		if v < VersionTLS12 {
			accepted, clientOrder, err = search.follow(first.hello.suite, tls12, confirming)
		} else {
			search.split(search.cands, first.hello.suite)
			accepted, clientOrder, err = search.finish(confirming)
		}
	} else {
		search.firstPicked(first.hello.suite)
		if rev := <-reversed; rev == first.hello.suite {
			search.disorder()
		}
		accepted, clientOrder, err = search.finish(confirming)
		notes.keep(p)
	}
	orderDone.Wait()
	fast := err != nil || clientOrder
	if err == nil && clientOrder && len(accepted) >= 2 {
		if !slices.Equal(checked, accepted) {
			serverOrd, gcmIfFirst, orderErr = orderChecks(ctx, p, v, accepted)
		}
		res.ServerOrder, res.AESGCMIfClientFirst, err = serverOrd, gcmIfFirst, orderErr
		fast = err != nil || (!res.ServerOrder && !res.AESGCMIfClientFirst)
	}
	if !fast {
		// The search found every accepted suite, in any order; the
		// server's order is read from its picks.
		hint := func() []uint16 { return nil }
		guessed := func([]uint16) {}
		if v < VersionTLS12 {
			hint = func() []uint16 { return tls12.order(ctx) }
		} else if v == VersionTLS12 {
			guessed = tls12.setOrder
		}
		var ordered, made []uint16
		picks := search.picks()
		goRule := res.AESGCMIfClientFirst
		if !goRule {
			var more []pickedOffer
			ordered, res.ServerOrder, goRule, more, err = ownOrder(ctx, p, v, cands, accepted, picks, hint, guessed)
			picks = append(picks, more...)
		}
		if err == nil && ordered == nil && goRule {
			// Go's rule: the order the classic way reads, from picks.
			if made, res.ServerOrder, err = goRuleOwnOrder(ctx, p, v, cands, accepted, picks, first.hello.suite); made != nil {
				ordered, res.AESGCMIfClientFirst = made, true
			}
		}
		if err == nil && ordered == nil {
			accepted, res.ServerOrder, res.AESGCMIfClientFirst, err = classicOrder(ctx, p, v, cands, first.hello.suite)
		} else if ordered != nil {
			accepted = ordered
		}
	}
	res.Supported = len(accepted) > 0
	for _, s := range accepted {
		res.Suites = append(res.Suites, Suite{ID: s, Name: SuiteName(s)})
	}
	return res, err
}

// ownOrder finds the order of the accepted suites of a server that picks
// by its own (see orderByPicks) and checks it as the classic way does,
// with both order checks on it. A nil order means that the classic way
// must read it, the picks did not agree with one order, or that the
// server follows Go's rule (goRule: see aesGCMIfClientFirst), whose order
// depends on the offer's first suite, and goRuleOwnOrder reads it, from
// the picks of the offers made here too (made). The checks go out
// beside each round of offers, on its guess, unless an earlier guess
// gave their offers the same first suites (see checksKey): the order
// found is mostly that of a guess, and the checks need not wait for it.
// guessed is passed each guess (see orderByPicks).
func ownOrder(ctx context.Context, p *prober, v uint16, cands, accepted []uint16, picks []pickedOffer, hint func() []uint16, guessed func([]uint16)) (order []uint16, server, goRule bool, made []pickedOffer, err error) {
	type checked struct {
		key                [4]uint16
		server, gcmIfFirst bool
		err                error
	}
	var early []*checked
	var wg sync.WaitGroup
	// A check that finds Go's rule ends the rounds, once the round out
	// is in (not cancelled: a connection cancelled as it opens may have
	// reached the server, uncounted): goRuleOwnOrder reads such a server.
	var goRuleSeen atomic.Bool
	rec := recordingAsker(proberAsker(p, v), &made)
	ask := asker{max: rec.max, picks: func(ctx context.Context, offers [][]uint16) ([]uint16, error) {
		if goRuleSeen.Load() {
			return nil, errGoRule
		}
		return rec.picks(ctx, offers)
	}}
	order, ok, err := orderByPicks(ctx, ask, cands, accepted, picks, hint, func(guess []uint16, unproven int) {
		guessed(guess)
		key := checksKey(guess)
		if !slices.ContainsFunc(early, func(c *checked) bool { return c.key == key }) {
			c := &checked{key: key}
			early = append(early, c)
			wg.Go(func() {
				c.server, c.gcmIfFirst, c.err = orderChecks(ctx, p, v, guess)
				if c.err == nil && c.gcmIfFirst {
					goRuleSeen.Store(true)
				}
			})
		}
	})
	wg.Wait()
	if goRuleSeen.Load() && ctx.Err() == nil {
		return nil, false, true, made, nil
	}
	if err != nil || !ok {
		return nil, false, false, nil, err
	}
	key := checksKey(order)
	var gcmIfFirst bool
	if i := slices.IndexFunc(early, func(c *checked) bool { return c.key == key }); i >= 0 {
		server, gcmIfFirst, err = early[i].server, early[i].gcmIfFirst, early[i].err
	} else {
		server, gcmIfFirst, err = orderChecks(ctx, p, v, order)
	}
	if err != nil || gcmIfFirst {
		return nil, false, gcmIfFirst, made, err
	}
	return order, server, false, nil, nil
}

// errGoRule ends ownOrder's rounds once a check finds Go's rule.
var errGoRule = errors.New("the server follows Go's rule")

// recordingAsker returns ask that also notes in *made each offer that
// got a pick, with the pick, for a round that ended without error.
func recordingAsker(ask asker, made *[]pickedOffer) asker {
	return asker{max: ask.max, picks: func(ctx context.Context, offers [][]uint16) ([]uint16, error) {
		picks, err := ask.picks(ctx, offers)
		if err == nil {
			for i, pick := range picks {
				if pick != 0 {
					*made = append(*made, pickedOffer{offer: offers[i], pick: pick})
				}
			}
		}
		return picks, err
	}}
}

// goRuleOwnOrder finds the order of the accepted suites of a server on
// Go's rule as the classic way reads it (see goRuleOrder), with its order
// checks as classicOrder makes them (server is true when they find the
// rule); they go out beside each round of offers, as in ownOrder. A nil
// order means that the classic way must read it, or that the checks do
// not find the rule on the order found.
func goRuleOwnOrder(ctx context.Context, p *prober, v uint16, cands, accepted []uint16, picks []pickedOffer, first uint16) (order []uint16, server bool, err error) {
	type checked struct {
		key        [4]uint16
		gcmIfFirst bool
		err        error
	}
	var early []*checked
	var wg sync.WaitGroup
	order, ok, err := goRuleOrder(ctx, proberAsker(p, v), cands, accepted, picks, first, func(guess []uint16) {
		key := checksKey(guess)
		if !slices.ContainsFunc(early, func(c *checked) bool { return c.key == key }) {
			c := &checked{key: key}
			early = append(early, c)
			wg.Go(func() { _, c.gcmIfFirst, c.err = orderChecks(ctx, p, v, guess) })
		}
	})
	wg.Wait()
	if err != nil || !ok {
		return nil, false, err
	}
	var gcmIfFirst bool
	key := checksKey(order)
	if i := slices.IndexFunc(early, func(c *checked) bool { return c.key == key }); i >= 0 {
		gcmIfFirst, err = early[i].gcmIfFirst, early[i].err
	} else {
		_, gcmIfFirst, err = orderChecks(ctx, p, v, order)
	}
	if err != nil || !gcmIfFirst {
		return nil, false, err
	}
	return order, true, nil
}

// checksKey returns what the offers of orderChecks on order depend on
// besides the suites: the suite it expects first and the first suite of
// each offer (order's last, its last AES-GCM and its last ChaCha20 one),
// where a server's rule may look (see aesGCMIfClientFirst).
func checksKey(order []uint16) [4]uint16 {
	last := func(f func(uint16) bool) uint16 {
		for _, id := range slices.Backward(order) {
			if f(id) {
				return id
			}
		}
		return 0
	}
	return [4]uint16{order[0], order[len(order)-1], last(isAESGCM), last(isChaCha)}
}

// classicOrder reads the server's order one offer after the other: every
// candidate not yet picked, from the first offer's pick on, until the
// server picks none. It returns the picks and the order checks on them,
// made side by side.
func classicOrder(ctx context.Context, p *prober, v uint16, cands []uint16, first uint16) (accepted []uint16, server, gcmIfFirst bool, err error) {
	accepted = []uint16{first}
	remaining := slices.DeleteFunc(slices.Clone(cands), func(s uint16) bool { return s == first })
	for len(remaining) > 0 {
		var r reply
		if r, err = p.send(ctx, offerFor(v, remaining), false); err != nil {
			break
		}
		if r.hello == nil || r.hello.version != v || !slices.Contains(remaining, r.hello.suite) {
			break
		}
		accepted = append(accepted, r.hello.suite)
		remaining = slices.DeleteFunc(remaining, func(s uint16) bool { return s == r.hello.suite })
	}
	if len(accepted) >= 2 && err == nil {
		server, gcmIfFirst, err = orderChecks(ctx, p, v, accepted)
		server = server || gcmIfFirst
	}
	return accepted, server, gcmIfFirst, err
}

// orderChecks runs both order checks on the accepted suites, side by side.
func orderChecks(ctx context.Context, p *prober, v uint16, accepted []uint16) (server, gcmIfFirst bool, err error) {
	var wg sync.WaitGroup
	var gcmErr error
	wg.Go(func() { gcmIfFirst, gcmErr = aesGCMIfClientFirst(ctx, p, v, accepted) })
	server, err = serverOrder(ctx, p, v, accepted)
	wg.Wait()
	return server, gcmIfFirst, errors.Join(err, gcmErr)
}

// serverOrder offers the accepted suites in reverse: a server that still
// picks its first choice imposes its own order.
func serverOrder(ctx context.Context, p *prober, v uint16, accepted []uint16) (bool, error) {
	rev := slices.Clone(accepted)
	slices.Reverse(rev)
	r, err := p.send(ctx, offerFor(v, rev), false)
	if err != nil || r.hello == nil {
		return false, err
	}
	return r.hello.suite == accepted[0], nil
}

// aesGCMIfClientFirst recognises Go's rule: offered the accepted suites
// with the AES-GCM ones first (the one it prefers least leading), such a
// server picks its own favourite AES-GCM suite, not the one offered first;
// offered ChaCha20 first, it picks ChaCha20. A server that follows the
// client picks the first offered both times, one with a fixed order the
// same suite both times. It needs two AES-GCM suites and a ChaCha20 one.
func aesGCMIfClientFirst(ctx context.Context, p *prober, v uint16, accepted []uint16) (bool, error) {
	var gcm []uint16
	for _, s := range slices.Backward(accepted) {
		if isAESGCM(s) {
			gcm = append(gcm, s)
		}
	}
	if len(gcm) < 2 || !slices.ContainsFunc(accepted, isChaCha) {
		return false, nil
	}
	first := func(pick func(uint16) bool) []uint16 {
		offer := slices.Clone(accepted)
		slices.Reverse(offer)
		slices.SortStableFunc(offer, func(a, b uint16) int { return boolRank(pick(b)) - boolRank(pick(a)) })
		return offer
	}
	// The two offers side by side.
	var b reply
	var bErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		b, bErr = p.send(ctx, offerFor(v, first(isChaCha)), false)
	}()
	a, err := p.send(ctx, offerFor(v, first(isAESGCM)), false)
	<-done
	if err != nil || a.hello == nil {
		return false, err
	}
	if bErr != nil || b.hello == nil {
		return false, bErr
	}
	return isAESGCM(a.hello.suite) && a.hello.suite != gcm[0] && isChaCha(b.hello.suite), nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isChaCha reports whether a suite encrypts with ChaCha20-Poly1305.
func isChaCha(id uint16) bool { return strings.Contains(SuiteName(id), "CHACHA20") }

// isAESGCM reports whether a suite encrypts with AES-GCM.
func isAESGCM(id uint16) bool {
	n := SuiteName(id)
	return strings.Contains(n, "_AES_") && strings.Contains(n, "_GCM_")
}

// checkHelloRetry sends what browsers send first, an X25519 key share
// among several supported groups, and reports whether the server asks
// for another share.
func checkHelloRetry(ctx context.Context, p *prober) (bool, string, error) {
	h := clientHello{version: VersionTLS13, suites: candidateSuites(true),
		groups:    []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521},
		keyShares: []tls.CurveID{tls.X25519}}
	r, err := p.send(ctx, h, false)
	if err != nil || r.hello == nil || !r.hello.retry {
		return false, "", err
	}
	return true, transport.GroupName(r.hello.group), nil
}

// scanGroups asks for each group alone, in parallel: in TLS 1.3 with no
// key share (a HelloRetryRequest naming the group means yes), in TLS 1.2
// with ECDHE or DHE suites only, reading the group from ServerKeyExchange;
// the TLS 1.2 groups in tls12 are known accepted and not asked.
func scanGroups(ctx context.Context, p *prober, versions []uint16, tls12 []tls.CurveID) ([]GroupResult, error) {
	type job struct {
		v uint16
		g tls.CurveID
	}
	var jobs []job
	for _, v := range groupVersions(versions) {
		for _, g := range allGroups {
			jobs = append(jobs, job{v, g})
		}
	}
	found := make([]*GroupResult, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		if j.v == VersionTLS12 && slices.Contains(tls12, j.g) {
			// The group order's offers got it already.
			found[i] = &GroupResult{Version: j.v, ID: uint16(j.g), Name: transport.GroupName(j.g)}
			continue
		}
		wg.Go(func() { found[i], errs[i] = scanGroup(ctx, p, j.v, j.g) })
	}
	wg.Wait()
	var out []GroupResult
	for _, g := range found {
		if g != nil {
			out = append(out, *g)
		}
	}
	return out, firstErr(errs)
}

// groupVersions returns the versions whose groups are scanned: TLS 1.3
// and the newest older one with extensions (TLS 1.2, else 1.1, else 1.0),
// whose groups the versions before it share.
func groupVersions(versions []uint16) []uint16 {
	var out []uint16
	var older uint16
	for _, v := range versions {
		switch {
		case v == VersionTLS13:
			out = append(out, v)
		case v > VersionSSL30 && v > older:
			older = v
		}
	}
	if older != 0 {
		out = append(out, older)
	}
	return out
}

func scanGroup(ctx context.Context, p *prober, v uint16, g tls.CurveID) (*GroupResult, error) {
	if v == VersionTLS13 {
		r, err := p.send(ctx, clientHello{version: v, suites: candidateSuites(true), groups: []tls.CurveID{g}}, false)
		if err != nil || r.hello == nil || r.hello.version != VersionTLS13 || r.hello.group != g {
			return nil, err
		}
		return &GroupResult{Version: v, ID: uint16(g), Name: transport.GroupName(g)}, nil
	}
	kind := "_ECDHE_"
	if g >= transport.GroupFFDHE2048 && g <= transport.GroupFFDHE8192 {
		kind = "_DHE_"
	}
	var suites []uint16
	for _, s := range candidateSuites(false) {
		if strings.Contains(SuiteName(s), kind) {
			suites = append(suites, s)
		}
	}
	groups := []tls.CurveID{g}
	if kind == "_ECDHE_" && p.certGroup != 0 && p.certGroup != g {
		groups = append(groups, p.certGroup)
	}
	r, err := p.send(ctx, clientHello{version: v, suites: suites, groups: groups}, true)
	if err != nil || r.kex == nil {
		return nil, err
	}
	if r.kex.group == g || (kind == "_DHE_" && r.kex.dhBits == ffdheBits[g]) {
		return &GroupResult{Version: v, ID: uint16(g), Name: transport.GroupName(g), DHBits: r.kex.dhBits}, nil
	}
	return nil, nil
}
