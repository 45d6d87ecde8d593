package probe

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/textproto"
	"slices"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// recorder collects the httptrace events of one request. Hooks fire on
// other goroutines (the dialer, HTTP/2's read loop, QUIC's handshake
// watcher), more than once (Happy Eyeballs) and after the round trip
// returned, so everything is recorded under a mutex and the first value
// of each event wins. After seal, late hooks are ignored.
type recorder struct {
	mu       sync.Mutex
	sealed   bool
	ev       Events
	dials    []Dial
	dialDone []bool
	info     []Informational // the first KeptInformational 1xx responses
	infos    int             // every 1xx response
	conn     net.Conn
	reused   bool
	tlsState *tls.ConnectionState
	tlsErr   error
	// onConn is called in GotConn, to snapshot byte counts; it returns
	// the connection's LastWrite, or nil if unknown.
	onConn    func(net.Conn) func() time.Time
	lastWrite func() time.Time
	// wroteBy is the socket's last write before the first response byte:
	// a bound on WroteRequest when that hook fires late.
	wroteBy time.Time
}

func newRecorder(start time.Time, onConn func(net.Conn) func() time.Time) *recorder {
	return &recorder{ev: Events{Start: start}, onConn: onConn}
}

// set stores now in *t unless it is already set or the recorder is sealed.
// It must be called with r.mu held.
func (r *recorder) set(t *time.Time, now time.Time) {
	if !r.sealed && t.IsZero() {
		*t = now
	}
}

func (r *recorder) mark(f func(now time.Time)) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.sealed {
		f(now)
	}
}

func (r *recorder) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart: func(httptrace.DNSStartInfo) { r.mark(func(now time.Time) { r.set(&r.ev.DNSStart, now) }) },
		DNSDone:  func(httptrace.DNSDoneInfo) { r.mark(func(now time.Time) { r.set(&r.ev.DNSDone, now) }) },
		ConnectStart: func(network, addr string) {
			r.mark(func(now time.Time) { r.connectStart(now, network, addr) })
		},
		ConnectDone: func(network, addr string, err error) {
			r.mark(func(now time.Time) { r.connectDone(now, network, addr, err) })
		},
		TLSHandshakeStart: func() { r.mark(func(now time.Time) { r.set(&r.ev.TLSStart, now) }) },
		TLSHandshakeDone: func(cs tls.ConnectionState, err error) {
			r.mark(func(now time.Time) {
				if err == nil {
					r.set(&r.ev.TLSDone, now)
				}
				if r.tlsState == nil {
					r.tlsState, r.tlsErr = &cs, err
				}
			})
		},
		GotConn: func(info httptrace.GotConnInfo) { r.gotConn(info.Conn, info.Reused) },
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			// HTTP/2 reports a write that failed (a body stalled by flow
			// control until the timeout) here too: the request was not
			// written, and the failure is in the send phase, not the wait.
			if info.Err == nil {
				r.mark(func(now time.Time) { r.set(&r.ev.WroteRequest, now) })
			}
		},
		GotFirstResponseByte: func() {
			r.mark(func(now time.Time) {
				if r.ev.FirstByte.IsZero() && r.lastWrite != nil {
					r.wroteBy = r.lastWrite()
				}
				r.set(&r.ev.FirstByte, now)
			})
		},
		Got1xxResponse: func(code int, _ textproto.MIMEHeader) error {
			return r.got1xx(code, time.Now())
		},
	}
}

// gotConn records the connection a request goes on: from the GotConn
// hook (HTTP/3) or from probe's own TCP client. quic-go's HTTP/3
// transport reports a connection as reused when its handshake is complete
// by the time the request looks, which a new connection dialed for this
// very request can be when the request's goroutine was descheduled (a
// busy machine, a resumed handshake on loopback): a QUIC dial of this
// request's own means a new connection.
func (r *recorder) gotConn(conn net.Conn, reused bool) {
	r.mark(func(now time.Time) {
		if r.conn == nil {
			dialed := slices.ContainsFunc(r.dials, func(d Dial) bool { return d.Network == "udp" })
			r.ev.GotConn, r.conn, r.reused = now, conn, reused && !dialed
			if r.onConn != nil {
				r.lastWrite = r.onConn(conn)
			}
		}
	})
}

// wroteRequest, got1xx and finalFirstByte are called by probe's own
// HTTP/1.1 client, which knows these moments exactly.
func (r *recorder) wroteRequest(at time.Time) {
	r.mark(func(time.Time) { r.set(&r.ev.WroteRequest, at) })
}

// got1xx counts a 1xx response and keeps the first few; past
// transport.MaxInformational it returns the error that ends the request.
func (r *recorder) got1xx(code int, at time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sealed {
		return nil
	}
	r.infos++
	if len(r.info) < KeptInformational {
		r.info = append(r.info, Informational{Status: code, At: at.Sub(r.ev.Start)})
	}
	return r.informationalErr()
}

// informationalErr returns the error of a request that got more than
// transport.MaxInformational 1xx responses, nil for one that did not.
// It must be called with r.mu held.
func (r *recorder) informationalErr() error {
	if r.infos > transport.MaxInformational {
		return fmt.Errorf("%w: more than %d without a final response", transport.ErrInformational, transport.MaxInformational)
	}
	return nil
}

// tooManyInformational returns informationalErr: HTTP/2's client turns
// the error of the Got1xxResponse hook into a stream error's text.
func (r *recorder) tooManyInformational() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.informationalErr()
}

func (r *recorder) finalFirstByte(at time.Time) {
	r.mark(func(time.Time) { r.ev.FirstByte = at })
}

// connectStart records a dial attempt. A "udp" attempt is a QUIC dial,
// whose time is the QUIC handshake's: it is listed, but it is no connect
// phase.
func (r *recorder) connectStart(now time.Time, network, addr string) {
	if network != "udp" {
		r.set(&r.ev.ConnectStart, now)
	}
	r.dials = append(r.dials, Dial{Network: network, Addr: addr, Start: now.Sub(r.ev.Start)})
	r.dialDone = append(r.dialDone, false)
}

// connectDone closes the oldest open attempt to addr; the first attempt
// that succeeds ends the connect phase.
func (r *recorder) connectDone(now time.Time, network, addr string, err error) {
	for i := range r.dials {
		d := &r.dials[i]
		if r.dialDone[i] || d.Addr != addr || d.Network != network {
			continue
		}
		r.dialDone[i] = true
		d.Duration = max(now.Sub(r.ev.Start)-d.Start, 0)
		if err != nil {
			d.Err = err.Error()
		} else if r.ev.ConnectDone.IsZero() && network != "udp" {
			r.ev.ConnectDone = now
		}
		return
	}
}

// gotFinalResponse is called when the round trip returned the final
// response's header. After a 1xx response, GotFirstResponseByte marked
// the 1xx's first byte, so the final response's first byte is taken as
// the moment its header was parsed (a little late, never early).
func (r *recorder) gotFinalResponse() {
	r.mark(func(now time.Time) {
		if len(r.info) > 0 || r.ev.FirstByte.IsZero() {
			r.ev.FirstByte = now
		}
	})
}

// seal stops recording and returns a copy of what was recorded.
func (r *recorder) seal(bodyDone time.Time) recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sealed = true
	r.ev.BodyDone = bodyDone
	r.boundBySocket()
	return recorded{
		ev: r.ev, dials: append([]Dial(nil), r.dials...), info: append([]Informational(nil), r.info...), infos: r.infos,
		conn: r.conn, reused: r.reused, tlsState: r.tlsState, tlsErr: r.tlsErr,
	}
}

// boundBySocket corrects hooks that fired late. HTTP/2 reports GotConn
// and WroteRequest from goroutines that a busy machine may run after the
// request was written, even after the response arrived; the socket's last
// write before the first response byte bounds both. On a new connection,
// a request written before the GotConn hook means the connection was
// ready when its handshake ended. It must be called with r.mu held.
func (r *recorder) boundBySocket() {
	w := r.wroteBy
	if w.IsZero() {
		return
	}
	ready := r.ev.TLSDone
	if ready.IsZero() {
		ready = r.ev.ConnectDone
	}
	if !r.reused && !ready.IsZero() && w.After(ready) && w.Before(r.ev.GotConn) {
		r.ev.GotConn = ready
	}
	if !w.Before(r.ev.GotConn) && (r.ev.WroteRequest.IsZero() || w.Before(r.ev.WroteRequest)) {
		r.ev.WroteRequest = w
	}
}

// recorded is what a recorder collected.
type recorded struct {
	ev       Events
	dials    []Dial
	info     []Informational
	infos    int
	conn     net.Conn
	reused   bool
	tlsState *tls.ConnectionState
	tlsErr   error
}
