package load

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// h1Request is a target serialised once, so that the hot path only
// writes bytes: keep asks to keep the connection, last asks the server
// to close it after the response.
type h1Request struct {
	keep, last []byte
	head       bool
	// idempotent says the request may be sent again after a connection
	// closed with it unanswered (RFC 9112, section 9.3.1): GET, HEAD,
	// PUT, DELETE, OPTIONS and TRACE.
	idempotent bool
}

// newH1Requests serialises the targets for the fast HTTP/1.1 client.
func newH1Requests(targets []Target) ([]h1Request, error) {
	out := make([]h1Request, len(targets))
	for i, t := range targets {
		u, err := url.Parse(t.URL)
		if err != nil {
			return nil, fmt.Errorf("parsing target URL: %w", err)
		}
		method := targetMethod(t)
		out[i] = h1Request{
			keep: serialiseH1(method, u, t, false),
			last: serialiseH1(method, u, t, true),
			head: method == http.MethodHead,
			idempotent: slices.Contains([]string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete,
				http.MethodOptions, http.MethodTrace}, method),
		}
	}
	return out, nil
}

func targetMethod(t Target) string {
	return transport.RequestMethod(t.Method, t.Body != nil)
}

// targetHost is the host a request names: the user's Host header when
// one is given (a virtual host on an address), else the URL's host.
func targetHost(t Target, u *url.URL) string {
	for k, vs := range t.Header {
		if http.CanonicalHeaderKey(k) == "Host" && len(vs) > 0 && vs[0] != "" {
			return vs[0]
		}
	}
	return u.Host
}

// serialiseH1 writes a target's request as HTTP/1.1 puts it on the wire:
// the request line, Host, the fields of requestHeader, Content-Length for
// a body, and Connection: close on the last request of a connection.
func serialiseH1(method string, u *url.URL, t Target, last bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), targetHost(t, u))
	for _, f := range requestHeader(t) {
		fmt.Fprintf(&b, "%s: %s\r\n", f.name, f.value)
	}
	if t.Body != nil {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(t.Body))
	}
	if last {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	b.Write(t.Body)
	return []byte(b.String())
}

// h1Worker drives one HTTP/1.1 connection slot: it reconnects as the
// connection mode asks and keeps up to Pipeline requests in flight.
type h1Worker struct {
	run  *runner
	reqs []h1Request
	next int // index of the next target
	rec  *recorder
	rd   *h1Reader
	wbuf []byte
	nc   net.Conn
	// raw is nc's TCP connection when its request writes may wait for
	// the answer (see awaitReply), else nil.
	raw   *rawConn
	used  int // requests sent on nc
	slots []h1Slot
	// refreshed is when the connection deadline was last set: it moves
	// only when it has aged by a hundredth of the timeout, which keeps
	// the per-request timeout within 1% and saves a timer update per
	// request.
	refreshed time.Time
	clock     time.Time // when the last request of the round was taken
}

// h1Slot is one request of a pipelined round.
type h1Slot struct {
	ev  event
	req *h1Request
}

func (w *h1Worker) loop() {
	defer w.rec.flush()
	defer w.closeConn()
	for w.round() {
	}
}

// round takes up to Pipeline tickets, sends their requests and reads the
// responses. It reports false when the run has no more tickets.
func (w *h1Worker) round() bool {
	r := w.run
	t, ok := r.src.next()
	if !ok {
		return false
	}
	w.slots = w.slots[:0]
	w.addSlot(t)
	for len(w.slots) < r.cfg.Pipeline && !w.connFull() {
		t, ok := r.src.tryNext()
		if !ok {
			break
		}
		w.addSlot(t)
	}
	w.exchange()
	return true
}

func (w *h1Worker) connFull() bool {
	k := w.run.cfg.RequestsPerConn
	return k > 0 && w.used+len(w.slots) >= k
}

func (w *h1Worker) addSlot(t ticket) {
	req := &w.reqs[w.next]
	w.next = (w.next + 1) % len(w.reqs)
	w.clock = time.Now()
	w.slots = append(w.slots, h1Slot{ev: event{intended: t, start: int64(w.clock.Sub(w.run.start))}, req: req})
}

// exchange sends the round's requests and reads their responses,
// connecting first when needed. When the server closes the connection
// in the middle of a pipelined round, after a response that says so
// (nginx after keepalive_requests) or without a word after some of the
// responses, the requests it did not answer are sent again on a new
// connection. Each attempt but a failure on a reused connection before
// any answer (stale) gets at least one answer, so the loop ends.
func (w *h1Worker) exchange() {
	for attempt := 0; len(w.slots) > 0; attempt++ {
		if !w.exchangeOnce(attempt < w.run.cfg.Pipeline) {
			return
		}
	}
}

// exchangeOnce does one write and the reads that follow. It reports true
// when slots remain to be sent again; resend allows it when no response
// came (see stale).
func (w *h1Worker) exchangeOnce(resend bool) bool {
	r := w.run
	reused := w.nc != nil
	if err := w.ready(); err != nil {
		w.failFrom(0, err)
		return false
	}
	awaited, err := w.write()
	if err != nil {
		return w.stale(reused && resend, fmt.Errorf("write: %w", err))
	}
	// A write that waited returns once the answer is there: the wait for
	// the first response byte began when its bytes went out.
	var written int64
	if sent, waited := w.raw.Sent(); waited {
		written = int64(sent.Sub(r.start))
	} else {
		written = r.now()
	}
	if !awaited {
		yieldForResponse()
	}
	for i := range w.slots {
		s := &w.slots[i]
		if _, err := w.rd.br.Peek(1); err != nil {
			if i == 0 {
				return w.stale(reused && resend, fmt.Errorf("read: %w", err))
			}
			return w.unanswered(i, fmt.Errorf("read: %w", err))
		}
		s.ev.wait = r.now() - max(written, s.ev.start)
		resp, err := w.rd.read(s.req.head)
		s.ev.end = r.now()
		if err != nil {
			w.failFrom(i, fmt.Errorf("read: %w", err))
			return false
		}
		s.ev.status, s.ev.bytes = resp.status, resp.body
		w.rec.add(s.ev)
		if resp.close && i < len(w.slots)-1 {
			// The server said it processes no more on this connection.
			w.slots = append(w.slots[:0], w.slots[i+1:]...)
			w.closeConn()
			return true
		}
		if resp.close {
			w.closeAnnounced()
		}
	}
	w.slots = w.slots[:0]
	if w.nc != nil && w.connFullAfter() {
		w.closeConn()
	}
	return false
}

// unanswered handles a connection that a server closed (or reset)
// after answering slots before i, without saying it would: the requests
// from i on are sent again on a new connection if they are idempotent,
// as RFC 9112 (section 9.3.2) asks of a client that pipelines; a POST
// may have been processed, so it fails instead, saying why. It reports
// whether slots remain to be sent.
func (w *h1Worker) unanswered(i int, err error) bool {
	if !closedByPeer(err) {
		w.failFrom(i, err)
		return false
	}
	for _, s := range w.slots[i:] {
		if !s.req.idempotent {
			w.failFrom(i, fmt.Errorf("%w (the server closed the connection with the pipelined request unanswered; not sent again, as its method is not idempotent)", err))
			return false
		}
	}
	w.slots = append(w.slots[:0], w.slots[i:]...)
	w.closeConn()
	return true
}

// closedByPeer reports the errors of a connection the server closed:
// EOF, a reset, a broken pipe.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// stale handles a failure before the first response byte. On a reused
// connection that the server closed while idle (EOF, reset, broken pipe)
// the round is sent again on a new connection, as browsers and net/http
// do; otherwise the requests fail.
func (w *h1Worker) stale(retry bool, err error) bool {
	if retry && closedByPeer(err) {
		w.closeConn()
		return true
	}
	w.failFrom(0, err)
	return false
}

// ready connects when needed and keeps the connection deadline at most
// a hundredth of the timeout behind now + timeout.
func (w *h1Worker) ready() error {
	now := w.clock
	if w.nc == nil {
		w.refreshed = now
		return w.connect(now.Add(w.run.cfg.Timeout))
	}
	if now.Sub(w.refreshed) < w.run.cfg.Timeout/100 {
		return nil
	}
	w.refreshed = now
	return w.nc.SetDeadline(now.Add(w.run.cfg.Timeout))
}

func (w *h1Worker) connFullAfter() bool {
	k := w.run.cfg.RequestsPerConn
	return k > 0 && w.used >= k
}

func (w *h1Worker) connect(deadline time.Time) error {
	r := w.run
	var ev event
	nc, err := r.ep.dial(r.ctx, deadline, r.now, &ev)
	if err != nil && r.src.halted() {
		return err // cut short by the interrupt, not failed
	}
	ev.err = err
	w.rec.add(ev)
	if err != nil {
		return err
	}
	if !r.conns.add(nc) {
		return errors.New("run stopped")
	}
	if err := nc.SetDeadline(deadline); err != nil {
		r.conns.remove(nc)
		return err
	}
	w.nc, w.used = nc, 0
	w.raw = awaitable(nc, r.cfg)
	w.rd.br.Reset(nc)
	return nil
}

// maxAwaitedRequest is the longest request whose write waits for the
// answer over TLS: crypto/tls sends a request as one record, one write
// to the socket, up to about 1180 bytes (its first records are that
// small); a longer one may take several, and the first must not wait.
const maxAwaitedRequest = 1024

// awaitable returns nc's TCP connection if request writes on it may
// wait for the answer (awaitReply), else nil: in the closed model, where
// a connection is never idle between a response and the next request
// (so a server's idle close, coming before the write, does not hide in
// the readiness cleared by the wait), and over TLS from version 1.2
// (TLS 1.0 splits a record of a CBC suite into two writes).
func awaitable(nc net.Conn, cfg Config) *rawConn {
	if cfg.Rate > 0 {
		return nil
	}
	if tc, ok := nc.(*tls.Conn); ok {
		if tc.ConnectionState().Version < tls.VersionTLS12 {
			return nil
		}
		nc = tc.NetConn()
	}
	raw, _ := nc.(*rawConn)
	return raw
}

// write sends the round's requests in one write; the last request a
// connection may carry asks the server to close it. It reports whether
// the write waited for the answer (awaitReply).
func (w *h1Worker) write() (bool, error) {
	k := w.run.cfg.RequestsPerConn
	b := w.wbuf[:0]
	if len(w.slots) == 1 {
		w.used++
		b = w.slots[0].req.keep
		if k > 0 && w.used >= k {
			b = w.slots[0].req.last
		}
	} else {
		for _, s := range w.slots {
			w.used++
			if k > 0 && w.used >= k {
				b = append(b, s.req.last...)
			} else {
				b = append(b, s.req.keep...)
			}
		}
		w.wbuf = b
	}
	awaited := w.raw != nil && (len(b) <= maxAwaitedRequest || w.nc == net.Conn(w.raw))
	if awaited {
		w.raw.awaitReply()
	}
	_, err := w.nc.Write(b)
	return awaited, err
}

// failFrom records slots i and later as failed with err and drops the
// connection, whose state is unknown after an error.
func (w *h1Worker) failFrom(i int, err error) {
	if w.run.src.halted() {
		w.closeConn()
		return // interrupted, not failed
	}
	end := w.run.now()
	for j := i; j < len(w.slots); j++ {
		ev := w.slots[j].ev
		ev.end, ev.err = end, err
		w.rec.add(ev)
	}
	w.closeConn()
}

// closeAnnounced closes a connection after a response that announced
// the server closes it (Connection: close): the server has sent its
// close_notify and closed its socket, so the TCP connection is closed
// without a close_notify of the client's own, which no one would read
// and whose arrival at a closed socket only draws a reset (as Chrome
// closes its connections).
func (w *h1Worker) closeAnnounced() {
	if tc, ok := w.nc.(*tls.Conn); ok {
		w.run.conns.removeQuiet(tc)
		w.nc, w.raw = nil, nil
		return
	}
	w.closeConn()
}

func (w *h1Worker) closeConn() {
	if w.nc != nil {
		w.run.conns.remove(w.nc)
		w.nc, w.raw = nil, nil
	}
}

// yieldForResponse lets the other workers run between writing a request
// and reading its response. Reading at once nearly always finds the
// socket empty: a read that fails with EAGAIN, a park and a poller wake-up
// per request. After the others have had their turn the response is
// usually there. Measured with strace at -c 50 on one core: reads that
// fail fell from 46% to 6% of requests, system calls per request from 2.5
// to 2.1. With nothing else to run it returns at once.
func yieldForResponse() { runtime.Gosched() }
