package page

import (
	"container/heap"
	"time"
)

// DefaultBrowserTightLimit is the limit of Chromium's tight mode
// (Config.TightLimit): its renderer lets two requests below its High
// priority (images, async scripts) run at the start of a page's load.
// httpslab's engine uses it only when asked (--tight-limit), as the rest
// of the modelled browser.
const DefaultBrowserTightLimit = 2

// tightMode is the modelled browser's start of a load (Config.TightLimit,
// TightUntil, TightBurstCost). Chromium's renderer schedules a page's
// requests in a tight mode first: requests below High priority (images,
// async and deferred scripts) are held while two of them are in flight. The mode
// ends when its parser inserts the page's <body>, and the renderer then
// hands the held requests to the network service at once; that service
// takes them one at a time on one thread, and those of a burst reach the
// wire only once it has taken most of the burst. The scripts and
// stylesheets the preload scanner found at the start come in such a
// burst too: on a page of 360 scripts Chromium's first one went out 117
// ms after the document's end, its median one 234 ms after. The model
// holds both, the low-priority requests beyond TightLimit in flight and
// every other request found meanwhile, until TightUntil after the
// document completed, and with TightBurstCost that long per request held
// then later, when they go out together as the network service's burst:
// a page that holds more requests waits longer. The requests it holds
// are not handed to a connection, so over HTTP/1.1 they open none
// either.
type tightMode struct {
	on       bool  // the tight mode lasts
	inFlight int   // low-priority requests handed on, not completed
	low      queue // low-priority requests waiting for a place or the mode's end
	rest     queue // the other requests, waiting for the mode's end
}

// low reports whether a request of kind k is below a browser's High
// priority: limited in the tight mode.
func (k Kind) low() bool { return k == KindImage || k == KindOther }

// dispatch hands r to its pool's connections, or holds it in the tight
// mode. It must be called with l.mu held.
func (l *loader) dispatch(r *request) {
	if l.tight.on && r.id > 1 {
		switch {
		case !r.ref.Kind.low():
			heap.Push(&l.tight.rest, r)
			return
		case l.tight.inFlight >= l.cfg.TightLimit:
			heap.Push(&l.tight.low, r)
			return
		}
		l.tight.inFlight++
		r.tight = true
	}
	heap.Push(&r.pool.queue, r)
	l.kick(r.pool)
}

// tightDone notes that r completed: a place of the tight mode is free
// again, and the document's end starts the clock of the mode's end. It
// must be called with l.mu held.
func (l *loader) tightDone(r *request) {
	if r.tight {
		r.tight = false
		l.tight.inFlight--
		l.releaseHeld()
	}
	if r.id != 1 || !l.tight.on {
		return
	}
	if l.cfg.TightUntil <= 0 {
		l.endTight()
		return
	}
	end := r.done.Add(l.cfg.TightUntil)
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if !l.sleepUntil(end) {
			return
		}
		l.mu.Lock()
		burst := time.Duration(l.tight.low.Len()+l.tight.rest.Len()) * l.cfg.TightBurstCost
		l.mu.Unlock()
		if burst > 0 && !l.sleepUntil(end.Add(burst)) {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.endTight()
	}()
}

// sleepUntil waits until t, or the load's end (false).
func (l *loader) sleepUntil(t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-l.done:
		return false
	}
}

// endTight ends the tight mode: every held request goes, the most
// urgent first. It must be called with l.mu held.
func (l *loader) endTight() {
	l.tight.on = false
	for l.tight.rest.Len() > 0 && !l.finished {
		l.send(heap.Pop(&l.tight.rest).(*request))
	}
	l.releaseHeld()
}

// releaseHeld hands on the held low-priority requests, in discovery
// order, while the tight mode has places for them or has ended. It must
// be called with l.mu held.
func (l *loader) releaseHeld() {
	for l.tight.low.Len() > 0 && !l.finished && (!l.tight.on || l.tight.inFlight < l.cfg.TightLimit) {
		l.send(heap.Pop(&l.tight.low).(*request))
	}
}

// send dispatches a held request, or fails it when its origin died
// meanwhile. It must be called with l.mu held.
func (l *loader) send(r *request) {
	if r.pool.dead != nil {
		l.failLocked(r, r.pool.dead)
		return
	}
	l.dispatch(r)
}
