package page

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"
)

// ErrProtocol is wrapped by the error of a load in which a request did
// not get the protocol the load asked for: such a load fails whole, as
// its time would mix protocols.
var ErrProtocol = errors.New("protocol mismatch")

// ErrDocument is wrapped by the error of a load whose document failed.
var ErrDocument = errors.New("the document failed")

// loader is the state of one load. One mutex guards it all: the request
// list, the queues and the connection counts; the conditions of the
// pools wait on it.
type loader struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc // aborts requests in flight once the load is over
	start  time.Time
	page   *url.URL

	mu       sync.Mutex
	reqs     []*request
	seen     map[string]bool
	pools    map[poolKey]*pool
	conns    []*connRec
	pending  int  // requests discovered and not completed
	finished bool // every request completed, or the load was stopped
	done     chan struct{}
	facts    *Facts // the document's, once it was read in full
	sheets   []Sheet
	skipped  int
	fatal    error // a protocol mismatch
	wg       sync.WaitGroup
	proc     *processor // the modelled browser's processing; nil without Config.ResponseCost, ResponseCostPerMB or ResponseDelay
	tight    tightMode  // the modelled browser's start of the load (Config.TightLimit)
}

// request is one resource while it loads.
type request struct {
	id, initiator, depth int
	ref                  Ref
	u                    *url.URL
	pool                 *pool
	conn                 *connRec
	discovered, assigned time.Time
	st                   stamps // written, first byte: set by the client's hooks
	done                 time.Time
	received             time.Time // with the modelled browser: the response's end; done is when it was processed
	queued               time.Time // with the modelled browser: when it will have processed the response's headers and bytes
	proto                string
	status               int
	bytes                int64
	err                  error
	alive                func() // restarts the stall clock (requestContext); set before the exchange
	tight                bool   // counted among the tight mode's requests in flight
}

// Run loads the page once.
func Run(ctx context.Context, cfg Config) (*Load, error) {
	cfg = cfg.withDefaults()
	u, err := cfg.check()
	if err != nil {
		return nil, err
	}
	if cfg.tlsConf, err = cfg.TLS.Config(); err != nil {
		return nil, fmt.Errorf("page: %w", err)
	}
	if cfg.Engine == EngineChromium {
		return runChromium(ctx, cfg, u)
	}
	ctx, stopTimer := context.WithTimeout(ctx, cfg.LoadTimeout)
	defer stopTimer()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l := &loader{cfg: cfg, ctx: ctx, cancel: cancel, page: u, seen: map[string]bool{}, pools: map[poolKey]*pool{}, done: make(chan struct{})}
	if cfg.ResponseCost > 0 || cfg.ResponseCostPerMB > 0 || cfg.ResponseDelay > 0 {
		l.proc = &processor{cost: cfg.ResponseCost, perMB: cfg.ResponseCostPerMB, delay: cfg.ResponseDelay}
	}
	l.tight.on = cfg.TightLimit > 0
	l.start = time.Now()
	l.mu.Lock()
	l.add(Ref{URL: u.String(), Kind: KindDocument}, nil)
	l.mu.Unlock()
	select {
	case <-l.done:
	case <-ctx.Done():
		l.stop()
	}
	l.wg.Wait()
	return l.result()
}

// stop ends the load early: waiting connections give up.
func (l *loader) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.finish()
}

// finish marks the load finished and wakes every waiting connection. It
// must be called with l.mu held.
func (l *loader) finish() {
	if l.finished {
		return
	}
	l.finished = true
	if l.fatal != nil {
		l.cancel()
	}
	for _, p := range l.pools {
		p.cond.Broadcast()
	}
	close(l.done)
}

// add queues a discovered resource, unless it was seen already, leaves
// the limits or the load is over. parent is the document or stylesheet
// that named it. It must be called with l.mu held.
func (l *loader) add(ref Ref, parent *request) {
	if l.finished || l.seen[ref.URL] {
		return
	}
	depth := 0
	if parent != nil {
		depth = parent.depth
		if ref.Kind == KindStylesheet && parent.ref.Kind == KindStylesheet {
			depth++
		}
	}
	if len(l.reqs) >= l.cfg.MaxResources || depth > l.cfg.MaxCSSDepth {
		l.skipped++
		return
	}
	l.seen[ref.URL] = true
	u, err := url.Parse(ref.URL)
	if err != nil {
		return // discovery hands over parsed URLs only
	}
	r := &request{id: len(l.reqs) + 1, ref: ref, u: u, depth: depth, discovered: time.Now()}
	if parent != nil {
		r.initiator = parent.id
	}
	l.reqs = append(l.reqs, r)
	l.pending++
	if l.page.Scheme == "https" && u.Scheme == "http" {
		// A browser blocks or upgrades mixed content; a load over TLS
		// never fetches a resource in the clear.
		l.failLocked(r, errors.New("mixed content: an http:// resource on an https:// page is not fetched"))
		return
	}
	p := l.pool(u, ref.Kind == KindFont && !sameOrigin(u, l.page))
	r.pool = p
	if p.dead != nil {
		l.failLocked(r, p.dead)
		return
	}
	l.dispatch(r)
}

func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Host == b.Host
}

// failLocked completes r with err. It must be called with l.mu held.
func (l *loader) failLocked(r *request, err error) {
	r.err = err
	r.done = time.Now()
	l.completeLocked(r)
}

// completeLocked marks r done, with what it discovered already queued.
// It must be called with l.mu held.
func (l *loader) completeLocked(r *request) {
	if r.err != nil && errors.Is(r.err, ErrProtocol) && l.fatal == nil {
		l.fatal = r.err
	}
	l.tightDone(r)
	l.pending--
	if l.pending == 0 || l.fatal != nil {
		l.finish()
	}
}

// discovered handles the resources a document or stylesheet named: the
// document's facts once it was read in full, and each sheet, so that the
// fonts and images the page uses are fetched.
func (l *loader) discovered(r *request, facts *Facts, sheets []Sheet) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range sheets {
		for _, u := range s.Imports {
			l.add(Ref{URL: u, Kind: KindStylesheet}, r)
		}
	}
	l.sheets = append(l.sheets, sheets...)
	if facts != nil {
		l.facts = facts
	}
	if l.facts != nil {
		for _, ref := range Needed(l.sheets, l.facts) {
			l.add(ref, r)
		}
	}
}

// emit is the discovery's callback for the document r.
func (l *loader) emit(r *request) func(Ref) {
	return func(ref Ref) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.add(ref, r)
	}
}

// result builds the Load once every goroutine has ended.
func (l *loader) result() (*Load, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ld := &Load{Protocol: l.cfg.Protocol, Started: l.start, Skipped: l.skipped, Requests: []Request{}, Conns: []Conn{}, PhaseTotals: map[string]time.Duration{}}
	var end time.Time
	for _, r := range l.reqs {
		if r.done.IsZero() {
			r.err, r.done = errors.New("not completed: the load was stopped"), time.Now()
			if l.ctx.Err() != nil {
				r.err = fmt.Errorf("not completed: %w", context.Cause(l.ctx))
			}
		}
		if r.done.After(end) {
			end = r.done
		}
		req := l.requestOf(r)
		for _, ph := range req.Phases {
			ld.PhaseTotals[ph.Name] += ph.Duration
		}
		ld.Requests = append(ld.Requests, req)
		if r.err != nil {
			ld.Failed++
		}
	}
	for _, c := range l.conns {
		ld.Conns = append(ld.Conns, c.record(l.start))
		hs, app := c.bytes()
		ld.Handshake.Read += hs.Read
		ld.Handshake.Written += hs.Written
		ld.Payload.Read += app.Read
		ld.Payload.Written += app.Written
		if c.resumed {
			ld.Resumed++
		}
		if rtt := c.rtt(); rtt > 0 && (ld.RTT == 0 || rtt < ld.RTT) {
			ld.RTT = rtt
		}
	}
	ld.Duration = end.Sub(l.start)
	doc := l.reqs[0]
	if fb := doc.st.firstByte(); !fb.IsZero() {
		ld.TTFB = fb.Sub(l.start)
	}
	switch {
	case l.fatal != nil:
		return ld, l.fatal
	case doc.err != nil:
		return ld, fmt.Errorf("%w: %w", ErrDocument, doc.err)
	case l.ctx.Err() != nil:
		return ld, fmt.Errorf("page load: %w", context.Cause(l.ctx))
	}
	return ld, nil
}
