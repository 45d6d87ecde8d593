package load

import (
	"fmt"
	"net/url"
	"strconv"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The fast HTTP/2 client serves both models (x/net's client through
// net/http, mux.go, remains as its yardstick: BenchmarkHTTP2Client). Per
// connection, the worker
// goroutine writes requests and a reader goroutine reads frames. The
// reader handles every frame the socket has before it blocks, so by the
// time the worker runs again several streams have usually ended, and the
// worker replaces them all in one write, as h2load's event loop does.
// How many depends on how far the server runs ahead: against a saturated
// nginx at -c 10 -m 10 the writes carried 1.3 to 2 requests each.

// h2Window is the flow-control window the client grants the server, per
// stream and for the connection, so that responses never wait for it.
const h2Window = 1 << 30

// h2Request is a target as HTTP/2 header fields and a body. The fields
// are encoded per connection with its own HPACK encoder: after the first
// requests every field is a one-byte reference to the server's dynamic
// table, as browsers and h2load send them, which spares the server from
// decoding the same strings on every request.
type h2Request struct {
	fields []hpack.HeaderField
	body   []byte
}

func newH2Requests(targets []Target) ([]h2Request, bool) {
	out := make([]h2Request, len(targets))
	for i, t := range targets {
		u, err := url.Parse(t.URL)
		if err != nil {
			return nil, false
		}
		fields := []hpack.HeaderField{{Name: ":method", Value: targetMethod(t)}, {Name: ":scheme", Value: u.Scheme},
			{Name: ":authority", Value: targetHost(t, u)}, {Name: ":path", Value: u.RequestURI()}}
		for _, f := range requestHeader(t) {
			fields = append(fields, hpack.HeaderField{Name: f.lowerName(), Value: f.value})
		}
		if t.Body != nil {
			fields = append(fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(t.Body))})
		}
		out[i] = h2Request{fields: fields, body: t.Body}
	}
	return out, true
}

// h2Worker drives one HTTP/2 connection slot: it connects, keeps up to
// Streams requests in flight and reconnects as the connection mode asks.
type h2Worker struct {
	run     *runner
	reqs    []h2Request
	next    int
	rec     *recorder
	pending []h2Pending
}

// h2Pending is a request taken from the source and not yet sent: the one
// that opens a connection, or one the server refused with GOAWAY (nginx
// does so after keepalive_requests), to be sent on the next connection.
type h2Pending struct {
	t       ticket
	start   int64
	target  int
	refused int // times a connection that had answered nothing refused it
}

// maxRefused bounds how often a request is sent again after connections
// that answered no request at all refused it (by GOAWAY or
// REFUSED_STREAM): a server that refuses everything. A refusal by a
// connection that answered some requests does not count: the run makes
// progress, and the request, unprocessed, is safe to send again however
// often (nginx answers keepalive_requests of a connection, 1000 by default,
// and refuses the streams past them).
const maxRefused = 3

func newH2Worker(r *runner, reqs []h2Request, i int) *h2Worker {
	return &h2Worker{run: r, reqs: reqs, next: i % len(reqs), rec: newRecorder(r.events)}
}

func (w *h2Worker) take(t ticket) h2Pending {
	p := h2Pending{t: t, start: w.run.now(), target: w.next}
	w.next = (w.next + 1) % len(w.reqs)
	return p
}

func (w *h2Worker) loop() {
	defer w.rec.flush()
	for {
		if len(w.pending) == 0 {
			t, ok := w.run.src.next()
			if !ok {
				return
			}
			w.pending = append(w.pending, w.take(t))
		}
		c, err := w.connect()
		if err != nil {
			w.failPending(err)
			continue
		}
		if w.run.noStreams.Load() {
			// The server has allowed no streams: a stream opened before
			// its SETTINGS say so again would be one it forbids.
			c.awaitSettled()
		}
		more := w.serve(c)
		c.close()
		w.takeRefused(c)
		if !more && len(w.pending) == 0 {
			return
		}
	}
}

func (w *h2Worker) failPending(err error) {
	if !w.run.src.halted() {
		for _, p := range w.pending {
			w.rec.add(event{intended: p.t, start: p.start, end: w.run.now(), err: err})
		}
	}
	w.pending = w.pending[:0]
}

// serve runs requests on c, pending ones first, until the connection's
// budget is spent, the server sends GOAWAY, the reader fails or the run has
// no more tickets; it reports false in the last case.
func (w *h2Worker) serve(c *h2Conn) bool {
	r := w.run
	more := true
	inflight, used, budget := 0, 0, r.cfg.RequestsPerConn
	for {
		c.wmu.Lock()
		for !c.goaway.Load() && inflight < int(c.limit.Load()) && (budget == 0 || used < budget) {
			p, ok := w.nextPending(&more)
			if !ok {
				break
			}
			if !w.open(c, p) {
				w.pending = append(w.pending, p)
				break
			}
			inflight++
			used++
		}
		err := c.bw.Flush()
		c.wmu.Unlock()
		if err != nil {
			c.abort(fmt.Errorf("write: %w", err))
			return more
		}
		// In the open model the worker also waits for the schedule's next
		// ticket while it may open a stream: the connection stays while
		// the schedule runs, as the stream loops of net/http's keep theirs.
		var tickets <-chan ticket
		if more && r.src.open != nil && !c.goaway.Load() && inflight < int(c.limit.Load()) && (budget == 0 || used < budget) {
			tickets = r.src.open
		}
		if inflight == 0 && tickets == nil {
			if !w.mayWait(c) {
				return more
			}
			continue
		}
		select {
		case t, ok := <-tickets:
			if !ok {
				more = false
			} else if !r.src.expired(t) {
				w.pending = append(w.pending, w.take(t))
			}
		case <-c.done:
			inflight--
		case <-c.wake:
			if err := c.flushBodies(); err != nil {
				c.abort(fmt.Errorf("write: %w", err))
				return more
			}
		case <-c.dead:
			return more
		}
		for n := len(c.done); n > 0; n-- {
			<-c.done
			inflight--
		}
		if c.nrefused.Load() > 0 {
			w.takeRefused(c)
		}
	}
}

// mayWait is called when no stream is in flight on c: it reports whether
// to go on with c, after waiting for the server to allow streams when it
// allows none and requests are pending (awaitStreams). Once a wait of
// the run has timed out, the server has had its chance: later requests
// that meet a limit of 0 fail at once.
func (w *h2Worker) mayWait(c *h2Conn) bool {
	if c.limit.Load() > 0 || c.goaway.Load() || len(w.pending) == 0 {
		return false
	}
	if w.run.noStreams.Load() {
		w.failPending(errNoStreams)
		return false
	}
	return w.awaitStreams(c)
}

// takeRefused moves the requests the server refused unprocessed to the
// front of the worker's pending ones.
func (w *h2Worker) takeRefused(c *h2Conn) {
	c.mu.Lock()
	w.pending = append(w.pending, c.refused...)
	c.refused = c.refused[:0]
	c.nrefused.Store(0)
	c.mu.Unlock()
}

// nextPending returns the next request to send: a pending one first,
// then a new ticket while the source has them (*more turns false when
// it has no more).
func (w *h2Worker) nextPending(more *bool) (h2Pending, bool) {
	if len(w.pending) > 0 {
		p := w.pending[0]
		w.pending = w.pending[1:]
		return p, true
	}
	if !*more {
		return h2Pending{}, false
	}
	t, ok, stillMore := w.run.src.poll()
	if !ok {
		*more = stillMore
		return h2Pending{}, false
	}
	return w.take(t), true
}

// open registers a stream and writes its HEADERS (and DATA) frames; the
// caller holds c.wmu. It reports false when GOAWAY came first.
func (w *h2Worker) open(c *h2Conn, p h2Pending) bool {
	req := &w.reqs[p.target]
	id, ok := c.register(p, w.run.now())
	if !ok {
		return false
	}
	_ = c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: c.headerBlock(p.target, req),
		EndStream: len(req.body) == 0, EndHeaders: true})
	if len(req.body) > 0 {
		c.startBody(id, req.body)
	}
	return true
}
