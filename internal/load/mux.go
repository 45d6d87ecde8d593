package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// muxConn is one HTTP/2 or HTTP/3 connection that carries concurrent
// streams through its library's client connection.
type muxConn interface {
	RoundTrip(*http.Request) (*http.Response, error)
	io.Closer
}

// httpRequest is a target as a request template for the library clients.
type httpRequest struct {
	req  *http.Request
	body []byte
}

func newHTTPRequests(targets []Target) ([]httpRequest, error) {
	out := make([]httpRequest, len(targets))
	for i, t := range targets {
		req, err := http.NewRequest(targetMethod(t), t.URL, nil)
		if err != nil {
			return nil, fmt.Errorf("building request for %q: %w", t.URL, err)
		}
		for _, f := range requestHeader(t) {
			req.Header[f.name] = append(req.Header[f.name], f.value)
		}
		if _, ok := req.Header["User-Agent"]; !ok {
			// The user left it out (-H 'User-Agent:'): an empty value
			// keeps net/http and quic-go from sending their own.
			req.Header["User-Agent"] = []string{""}
		}
		// net/http and quic-go take the host from req.Host, not the
		// header, and the length from req.ContentLength.
		req.Host = targetHost(t, req.URL)
		if t.Body != nil {
			req.ContentLength = int64(len(t.Body))
		}
		out[i] = httpRequest{req: req, body: t.Body}
	}
	return out, nil
}

// muxWorker drives one HTTP/2 or HTTP/3 connection slot: it opens a
// connection, runs Streams concurrent request loops on it until the
// connection's request budget or the run ends, and reconnects.
type muxWorker struct {
	run  *runner
	reqs []httpRequest
	next int
	dial func(deadline time.Time, ev *event) (muxConn, error)

	mu      sync.Mutex
	pending []muxPending // requests to send again on the next connection
}

// muxPending is a request taken from the source and not yet answered.
type muxPending struct {
	t       ticket
	start   int64
	refused int // times a connection that had answered nothing refused it unprocessed
}

// take returns a pending request, else a new ticket from the source.
func (w *muxWorker) take() (muxPending, bool) {
	w.mu.Lock()
	if n := len(w.pending); n > 0 {
		p := w.pending[0]
		w.pending = w.pending[1:]
		w.mu.Unlock()
		return p, true
	}
	w.mu.Unlock()
	t, ok := w.run.src.next()
	return muxPending{t: t, start: w.run.now()}, ok
}

func (w *muxWorker) requeue(p muxPending) {
	w.mu.Lock()
	w.pending = append(w.pending, p)
	w.mu.Unlock()
}

func (w *muxWorker) loop() {
	rec := newRecorder(w.run.events)
	defer rec.flush()
	for {
		p, ok := w.take()
		if !ok {
			return
		}
		var ev event
		c, err := w.dial(time.Now().Add(w.run.cfg.Timeout), &ev)
		if err != nil && w.run.src.halted() {
			return // cut short by the interrupt, not failed
		}
		ev.err = err
		rec.add(ev)
		if err != nil {
			w.fail(rec, p, err)
			continue
		}
		if !w.run.conns.add(c) {
			return
		}
		w.streams(c, p)
		w.run.conns.remove(c)
	}
}

func (w *muxWorker) fail(rec *recorder, p muxPending, err error) {
	if w.run.src.halted() {
		return
	}
	rec.add(event{intended: p.t, start: p.start, end: w.run.now(), err: err})
}

// streams runs the concurrent request loops of one connection; the first
// loop starts with the request that opened the connection.
func (w *muxWorker) streams(c muxConn, first muxPending) {
	var budget atomic.Int64
	budget.Store(int64(w.run.cfg.RequestsPerConn))
	limited := w.run.cfg.RequestsPerConn > 0
	var broken atomic.Bool
	var answered atomic.Int64
	var wg sync.WaitGroup
	for s := 0; s < w.run.cfg.Streams; s++ {
		target := w.next
		w.next++
		wg.Go(func() {
			rec := newRecorder(w.run.events)
			defer rec.flush()
			st := stream{w: w, c: c, rec: rec, next: target, budget: &budget, limited: limited, broken: &broken, answered: &answered}
			if s == 0 {
				st.budget.Add(-1)
				st.do(first)
			}
			for st.more() {
			}
		})
	}
	wg.Wait()
}

// stream is one request loop on a shared connection.
type stream struct {
	w       *muxWorker
	c       muxConn
	rec     *recorder
	next    int
	budget  *atomic.Int64
	limited bool
	broken  *atomic.Bool
	// answered counts the connection's requests that had a response: a
	// refusal by a connection that answered some is not held against
	// the request (maxRefused).
	answered *atomic.Int64
}

// more takes the connection's budget, then a request, and does it.
func (s *stream) more() bool {
	if s.broken.Load() || s.limited && s.budget.Add(-1) < 0 {
		return false
	}
	p, ok := s.w.take()
	if !ok {
		return false
	}
	s.do(p)
	return true
}

func (s *stream) do(p muxPending) {
	r := s.w.run
	hr := &s.w.reqs[s.next%len(s.w.reqs)]
	s.next++
	ctx, cancel := context.WithTimeout(r.ctx, r.cfg.Timeout)
	defer cancel()
	req := hr.req.WithContext(ctx)
	if hr.body != nil {
		req.Body = io.NopCloser(bytes.NewReader(hr.body))
	}
	ev := event{intended: p.t, start: p.start}
	sent := r.now()
	resp, err := s.c.RoundTrip(req)
	if err == nil {
		ev.wait = r.now() - sent
		ev.status = resp.StatusCode
		ev.bytes, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	ev.end = r.now()
	if err == nil {
		s.answered.Add(1)
	}
	if err != nil {
		s.broken.Store(true)
		if r.src.halted() {
			return
		}
		if resp == nil && unprocessed(err) {
			if s.answered.Load() == 0 {
				p.refused++
			}
			if p.refused <= maxRefused {
				s.w.requeue(p)
				return
			}
		}
		ev.err = headerLimitError(err, r.cfg.MaxHeaderBytes)
	}
	s.rec.add(ev)
}

// headerLimitError names the header limit in the errors with which x/net
// and quic-go enforce it (as MaxResponseHeaderBytes, h2.go), known by
// their text as they are unexported: transport keeps the one list of
// those texts (quic-go refuses a HEADERS frame longer than the limit
// before it reads it, and a decoded block over it after). x/net refuses
// a single field longer than the limit with a COMPRESSION_ERROR of the
// connection, as it does a malformed block: that error gets a note
// saying it may be either.
func headerLimitError(err error, limit int64) error {
	msg := err.Error()
	switch {
	case transport.IsHeaderLimit(transport.AsHeaderLimit(err, limit)):
		return &HeaderTooLargeError{Limit: limit}
	case strings.Contains(msg, "COMPRESSION_ERROR"):
		return fmt.Errorf("%w (a header field over the limit of %s, or a malformed header block)", err, sizeName(limit))
	}
	return err
}

// unprocessed reports errors with which net/http and quic-go refuse a
// request that never reached the server: the connection had received
// GOAWAY or become unusable. Both libraries keep these errors
// unexported, so they are known by their text; the request is sent again
// on a new connection, as their own transports do.
func unprocessed(err error) bool {
	msg := err.Error()
	for _, s := range []string{"client conn not usable", "graceful shutdown GOAWAY", "conn unusable"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
