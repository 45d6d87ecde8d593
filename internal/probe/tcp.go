package probe

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// liveConn is an open TCP connection and the HTTP client on it: HTTP/1.1
// driven by probe itself, synchronously, so that writing the request and
// reading the first response byte are timed where they happen, or HTTP/2
// through net/http's ClientConn.
type liveConn struct {
	addr string                  // the URL's host:port
	tcp  *transport.Conn         // counts bytes, reads TCP_INFO
	conn net.Conn                // the *tls.Conn, or tcp for plain HTTP
	hr   *transport.HeaderReader // HTTP/1.1: responses with their header bounded
	br   *bufio.Reader           // HTTP/1.1: hr's buffer, where bodies are read
	bw   *bufio.Writer
	h2   *http.ClientConn
	dead bool // HTTP/1.1: the connection cannot take another request
}

// usable reports whether another request to addr can go on lc.
func (lc *liveConn) usable(addr string) bool {
	if lc == nil || lc.addr != addr {
		return false
	}
	if lc.h2 != nil {
		return lc.h2.Err() == nil && lc.h2.Available() > 0
	}
	return !lc.dead
}

func (lc *liveConn) close() {
	if lc.h2 != nil {
		lc.h2.Close()
	}
	lc.conn.Close()
}

// dialLive opens a connection for u: TCP, TLS for https, and HTTP/2 when
// ALPN picked h2 (or prior knowledge was asked for over http://). The
// dial runs on the caller's goroutine, with ctx's trace hooks firing.
func (c *Client) dialLive(ctx context.Context, u *url.URL) (*liveConn, error) {
	addr := transport.HostPort(u)
	lc := &liveConn{addr: addr}
	if u.Scheme == "https" {
		tc, err := c.dialer.DialTLS(ctx, "tcp", addr, c.tlsConfig)
		if err != nil {
			return nil, err
		}
		lc.conn, lc.tcp = tc, tc.NetConn().(*transport.Conn)
	} else {
		tcp, err := c.dialer.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		lc.conn, lc.tcp = tcp, tcp
	}
	c.remember(lc.conn, lc.tcp)
	if c.wantsHTTP2(lc.conn) {
		cc, err := c.newH2(ctx, u.Scheme, addr, lc.conn)
		if err != nil {
			c.forget(lc.conn)
			lc.conn.Close()
			return nil, err
		}
		lc.h2 = cc
		return lc, nil
	}
	lc.hr = transport.NewHeaderReader(lc.conn, c.cfg.MaxHeaderBytes)
	lc.br, lc.bw = lc.hr.Buffered(), bufio.NewWriter(lc.conn)
	return lc, nil
}

func (c *Client) wantsHTTP2(conn net.Conn) bool {
	if tc, ok := conn.(*tls.Conn); ok {
		return tc.ConnectionState().NegotiatedProtocol == "h2"
	}
	return c.cfg.Protocol == transport.HTTP2
}

// newH2 starts HTTP/2 on an established connection: net/http's
// Transport.NewClientConn dials through a function that hands it conn.
func (c *Client) newH2(ctx context.Context, scheme, addr string, conn net.Conn) (*http.ClientConn, error) {
	give := transport.HandOver(conn)
	// MaxResponseHeaderBytes is also HTTP/2's limit on a header list
	// (sent as SETTINGS_MAX_HEADER_LIST_SIZE and enforced on the decoded
	// fields).
	t := &http.Transport{DialContext: give, DialTLSContext: give, ForceAttemptHTTP2: true, DisableCompression: true,
		MaxResponseHeaderBytes: transport.HeaderLimit(c.cfg.MaxHeaderBytes)}
	t.Protocols = new(http.Protocols)
	if scheme == "https" {
		t.Protocols.SetHTTP2(true)
	} else {
		t.Protocols.SetUnencryptedHTTP2(true)
	}
	cc, err := t.NewClientConn(ctx, scheme, addr)
	if err != nil {
		return nil, fmt.Errorf("starting HTTP/2: %w", err)
	}
	return cc, nil
}

// roundTripTCP sends req on the live connection, opening one if there is
// none for req's host or it cannot take another request.
func (c *Client) roundTripTCP(req *http.Request, rec *recorder) (*http.Response, error) {
	ctx := req.Context()
	addr := transport.HostPort(req.URL)
	reused := c.live.usable(addr)
	if !reused {
		c.closeLive()
		lc, err := c.dialLive(ctx, req.URL)
		if err != nil {
			return nil, err
		}
		c.live = lc
	}
	lc := c.live
	rec.gotConn(lc.conn, reused)
	var resp *http.Response
	var err error
	if lc.h2 != nil {
		if resp, err = lc.h2.RoundTrip(req); err == nil {
			rec.gotFinalResponse()
		} else if tooMany := rec.tooManyInformational(); tooMany != nil {
			err = tooMany
		}
	} else {
		resp, err = lc.roundTripH1(req, rec)
	}
	if tc, ok := lc.conn.(*tls.Conn); ok && err == nil && resp.TLS == nil {
		cs := tc.ConnectionState()
		resp.TLS = &cs
	}
	return resp, err
}

func (c *Client) closeLive() {
	if c.live != nil {
		c.forget(c.live.conn)
		c.live.close()
		c.live = nil
	}
}

// roundTripH1 writes req and reads the response header on the caller's
// goroutine: the request is written when Flush returns and the first byte
// has arrived when Peek returns, with no other goroutine in between. 1xx
// responses are recorded and skipped, up to transport.MaxInformational. The body is read by the caller;
// until it is, ctx's end still aborts the connection.
func (lc *liveConn) roundTripH1(req *http.Request, rec *recorder) (*http.Response, error) {
	ctx := req.Context()
	lc.dead = true // until the response body is read to the end
	stop := context.AfterFunc(ctx, func() { lc.conn.SetDeadline(time.Unix(1, 0)) })
	fail := func(err error) (*http.Response, error) {
		stop()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, err
	}
	if err := req.Write(lc.bw); err != nil {
		return fail(fmt.Errorf("writing the request: %w", err))
	}
	if err := lc.bw.Flush(); err != nil {
		return fail(fmt.Errorf("writing the request: %w", err))
	}
	rec.wroteRequest(time.Now())
	for {
		if _, err := lc.br.Peek(1); err != nil {
			return fail(fmt.Errorf("reading the response: %w", err))
		}
		first := time.Now()
		resp, err := lc.hr.ReadResponse(req)
		if err != nil {
			return fail(fmt.Errorf("reading the response: %w", err))
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			if err := rec.got1xx(resp.StatusCode, first); err != nil {
				return fail(err)
			}
			continue
		}
		rec.finalFirstByte(first)
		resp.Body = &h1Body{ReadCloser: resp.Body, lc: lc, keep: !resp.Close && !req.Close, stop: stop}
		return resp, nil
	}
}

// h1Body marks the connection reusable once the body was read to its end
// and the response allows keep-alive.
type h1Body struct {
	io.ReadCloser
	lc   *liveConn
	keep bool
	stop func() bool
	eof  bool
}

func (b *h1Body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *h1Body) Close() error {
	// If the context ended first, its deadline may already be set on the
	// connection: then it cannot be reused.
	stopped := b.stop()
	b.lc.dead = !(stopped && b.eof && b.keep)
	return b.ReadCloser.Close()
}
