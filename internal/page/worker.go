package page

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// errStatus is wrapped by the error of a response of 400 or more: the
// request failed, its connection is fine.
var errStatus = errors.New("error status")

// dialFailed records a connection that could not be opened. A protocol
// mismatch fails the load; otherwise, when no other connection of the
// pool is left, the origin is taken as dead and its requests fail. It
// must be called with l.mu held.
func (l *loader) dialFailed(p *pool, c *connRec, err error) {
	c.err, c.last = err, time.Now()
	switch {
	case errors.Is(err, ErrProtocol):
		if l.fatal == nil {
			l.fatal = err
		}
		l.finish()
	case p.conns == 0:
		l.deadPool(p, fmt.Errorf("connecting to %s: %w", p.key.origin, err))
	}
}

// h1Worker is one HTTP/1.1 connection: it dials, then takes the pool's
// most urgent request, one at a time, until the load is over or the
// server closes the connection.
func (l *loader) h1Worker(p *pool) {
	defer l.wg.Done()
	c := l.newConn(p)
	conn, err := l.dialTCP(p, c)
	if conn != nil {
		// Registered before the lock's: it runs after the unlock, for a
		// TLS close can wait seconds on a peer that does not read.
		defer conn.Close()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		p.conns--
		l.dialFailed(p, c, err)
		return
	}
	hr := transport.NewHeaderReader(conn, l.cfg.MaxHeaderBytes)
	h := &h1Conn{conn: conn, hr: hr, br: hr.Buffered(), bw: bufio.NewWriter(conn)}
	for {
		r := l.next(p, func() bool { return true })
		if r == nil {
			break
		}
		l.assign(r, c)
		l.mu.Unlock()
		keep := l.exchangeH1(h, r)
		l.process(r)
		l.mu.Lock()
		c.last = r.done
		l.completeLocked(r)
		if !keep {
			break
		}
	}
	p.conns--
	if !l.finished && p.queue.Len() > 0 {
		l.kick(p) // the server closed this one: another takes over the queue
	}
}

// h1Conn is an HTTP/1.1 connection with its buffers.
type h1Conn struct {
	conn net.Conn
	hr   *transport.HeaderReader // responses with their header bounded
	br   *bufio.Reader           // hr's buffer, where bodies are read
	bw   *bufio.Writer
}

// exchangeH1 sends r on h and reads its response, on this goroutine:
// the request is written when Flush returns and the first byte has come
// when Peek returns. It reports whether h can take another request.
func (l *loader) exchangeH1(h *h1Conn, r *request) (keep bool) {
	ctx, release := l.requestContext(r)
	defer release()
	r.alive() // the connection is this request's: its clock starts now
	stop := context.AfterFunc(ctx, func() { h.conn.SetDeadline(time.Unix(1, 0)) })
	resp, err := l.roundTripH1(ctx, h, r)
	if err == nil {
		err = l.consume(r, resp)
		keep = !resp.Close && (err == nil || errors.Is(err, errStatus))
	}
	r.done = time.Now()
	if !stop() {
		keep = false // the deadline may be set on the connection
	}
	if err != nil {
		r.err = err
		if ctx.Err() != nil {
			r.err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
		}
	}
	return keep
}

func (l *loader) roundTripH1(ctx context.Context, h *h1Conn, r *request) (*http.Response, error) {
	req, err := l.newRequest(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := req.Write(h.bw); err != nil {
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	if err := h.bw.Flush(); err != nil {
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	r.st.setWrote(time.Now())
	r.alive()
	for range transport.MaxInformational + 1 {
		if _, err := h.br.Peek(1); err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		r.alive()
		first := time.Now()
		resp, err := h.hr.ReadResponse(req)
		if err != nil {
			return nil, fmt.Errorf("reading the response: %w", err)
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue
		}
		r.st.setFirstByte(first)
		return resp, nil
	}
	return nil, fmt.Errorf("reading the response: %w", transport.ErrInformational)
}

// roundTripper is an HTTP/2 or HTTP/3 client connection.
type roundTripper interface {
	RoundTrip(*http.Request) (*http.Response, error)
}

// muxWorker is the one HTTP/2 or HTTP/3 connection of a pool: it dials,
// then sends the pool's requests, most urgent first, each on its own
// stream, with at most MaxStreams in flight.
func (l *loader) muxWorker(p *pool) {
	defer l.wg.Done()
	c := l.newConn(p)
	rt, closeConn, err := l.dialMux(p, c)
	if closeConn != nil {
		defer closeConn() // after the unlock, as in h1Worker
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.dialFailed(p, c, err)
		return
	}
	active := 0
	for {
		r := l.next(p, func() bool { return active < l.cfg.MaxStreams })
		if r == nil {
			return
		}
		l.assign(r, c)
		active++
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.exchangeMux(rt, r)
			l.process(r)
			l.mu.Lock()
			defer l.mu.Unlock()
			active--
			if r.done.After(c.last) {
				c.last = r.done
			}
			l.completeLocked(r)
			p.cond.Signal()
		}()
	}
}

// dialMux opens the connection of an HTTP/2 or HTTP/3 pool.
func (l *loader) dialMux(p *pool, c *connRec) (roundTripper, func(), error) {
	if l.cfg.Protocol == HTTP3 {
		cc, err := l.dialQUIC(p, c)
		if c.quic == nil {
			return nil, nil, err
		}
		closeConn := func() { c.quic.CloseWithError(0, "") }
		if err != nil {
			closeConn()
			return nil, nil, err
		}
		return cc, closeConn, nil
	}
	conn, err := l.dialTCP(p, c)
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		return nil, nil, err
	}
	cc, err := newH2(l.ctx, p, conn, l.cfg.MaxHeaderBytes)
	if err != nil {
		conn.Close()
		return nil, nil, err
	}
	return cc, func() { cc.Close() }, nil
}

// exchangeMux sends r on its own stream and reads its response.
func (l *loader) exchangeMux(rt roundTripper, r *request) {
	ctx, release := l.requestContext(r)
	defer release()
	req, err := l.newRequest(ctx, r)
	var resp *http.Response
	if err == nil {
		resp, err = rt.RoundTrip(req)
		err = transport.AsHeaderLimit(err, l.cfg.MaxHeaderBytes)
	}
	if err == nil {
		r.st.setFirstByte(time.Now()) // in case the hook did not fire
		err = l.consume(r, resp)
		resp.Body.Close()
	}
	r.done = time.Now()
	if err != nil {
		r.err = err
		if ctx.Err() != nil {
			r.err = fmt.Errorf("%w (%w)", context.Cause(ctx), err)
		}
	}
}
