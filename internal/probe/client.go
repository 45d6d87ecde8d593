package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go/http3"
)

// UserAgent is sent unless Config.Header sets one.
const UserAgent = "httpslab"

// Client probes one URL again and again, on the kind of connection each
// Do asks for. It is not safe for concurrent use.
type Client struct {
	cfg      Config
	url      *url.URL
	dialer   *transport.Dialer
	sessions *transport.SessionCache

	// baseTLS is the TLS configuration of the flags (CA file read once);
	// each mode's configuration is a clone of it.
	baseTLS *tls.Config

	// The connections of the current mode: a TCP connection with its
	// HTTP/1.1 or HTTP/2 client, or an HTTP/3 transport.
	tlsConfig *tls.Config
	live      *liveConn
	h3        *http3.Transport

	// conns are the open connections this Client dialed, by local and
	// remote address: the live TCP connection, and the HTTP/3
	// transport's QUIC connections until they end.
	mu    sync.Mutex
	conns map[string]connEntry
}

// connEntry is a connection this Client dialed.
type connEntry struct {
	tcp  *transport.Conn     // nil for QUIC
	quic *transport.QUICConn // nil for TCP
}

// app returns the connection's application bytes so far.
func (e connEntry) app() transport.Counts {
	if e.quic != nil {
		return e.quic.Packets.App()
	}
	return e.tcp.App()
}

// handshake returns the connection's handshake bytes and whether the
// handshake completed.
func (e connEntry) handshake() (transport.Counts, bool) {
	if e.quic != nil {
		return e.quic.Packets.Handshake()
	}
	return e.tcp.Handshake()
}

// lastWrite returns when the last write to the connection's socket began.
func (e connEntry) lastWrite() time.Time {
	if e.quic != nil {
		return e.quic.Packets.LastWrite()
	}
	return e.tcp.LastWrite()
}

// New checks cfg and returns a Client for it. It opens no connection.
func New(cfg Config) (*Client, error) {
	u, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	base, err := cfg.TLS.Config()
	if err != nil {
		return nil, err
	}
	return &Client{cfg: cfg, url: u, dialer: &transport.Dialer{Routes: cfg.Routes}, baseTLS: base, sessions: transport.NewSessionCache(0), conns: map[string]connEntry{}}, nil
}

// Tickets returns how many TLS sessions the servers handed to this
// Client's resumption cache so far (zero: resumption cannot happen).
func (c *Client) Tickets() int64 { return c.sessions.Tickets() }

// Close closes the Client's connections.
func (c *Client) Close() error {
	c.dropTransport()
	return nil
}

func (c *Client) dropTransport() {
	c.closeLive()
	if c.h3 != nil {
		c.h3.Close()
		c.h3 = nil
	}
	c.tlsConfig = nil
	c.mu.Lock()
	clear(c.conns)
	c.mu.Unlock()
}

// prepare sets up the transport for mode: a new one, without or with the
// session cache, or the current one for KeepAlive.
func (c *Client) prepare(mode transport.ConnMode) error {
	if mode == transport.ZeroRTT && c.cfg.Protocol != transport.HTTP3 {
		return errors.New("probe: 0-RTT needs HTTP/3")
	}
	if mode == transport.KeepAlive && c.tlsConfig != nil {
		return nil
	}
	c.dropTransport()
	var sessions tls.ClientSessionCache // a nil interface: no resumption
	if mode == transport.Resumed || mode == transport.ZeroRTT {
		sessions = c.sessions
	}
	cfg := c.newTLSConfig(sessions)
	c.tlsConfig = cfg
	if c.cfg.Protocol == transport.HTTP3 {
		c.h3 = c.newHTTP3(cfg, mode == transport.ZeroRTT)
	}
	return nil
}

func connKey(conn net.Conn) string {
	return conn.LocalAddr().String() + " " + conn.RemoteAddr().String()
}

func (c *Client) remember(conn net.Conn, tc *transport.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.conns[connKey(conn)] = connEntry{tcp: tc}
}

func (c *Client) forget(conn net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.conns, connKey(conn))
}

// rememberQUIC keeps qc until it ends: the HTTP/3 transport may redial
// on its own, and a closed connection is looked up no more.
func (c *Client) rememberQUIC(qc *transport.QUICConn) {
	key := qc.LocalAddr().String() + " " + qc.RemoteAddr().String()
	c.mu.Lock()
	c.conns[key] = connEntry{quic: qc}
	c.mu.Unlock()
	context.AfterFunc(qc.Context(), func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if e, ok := c.conns[key]; ok && e.quic == qc {
			delete(c.conns, key)
		}
	})
}

func (c *Client) lookup(conn net.Conn) (connEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.conns[connKey(conn)]
	return e, ok
}

// Do sends the request on a connection of the given mode and, with
// FollowRedirects, follows redirects (later hops use whatever connection
// fits, as a browser would). On error the Result still holds the hops and
// phases that completed, and its Error says why (so does the failed
// hop's Timeline.Err, when a hop failed).
//
// transport.Fresh opens a new connection with a full handshake and no
// session cache. transport.Resumed opens a new connection resuming the
// session that this Client's previous Resumed (or ZeroRTT) Do cached; the
// first one primes the cache with a full handshake. transport.ZeroRTT
// (HTTP/3 only) opens a new QUIC connection and sends a GET or HEAD as
// 0-RTT early data on the cached session; the first one primes.
// transport.KeepAlive sends the request on the connection of the previous
// Do; on the first Do it opens one.
func (c *Client) Do(ctx context.Context, mode transport.ConnMode) (*Result, error) {
	if err := c.prepare(mode); err != nil {
		return nil, err
	}
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	res := &Result{Mode: mode}
	method, body := c.cfg.method(), c.cfg.Body
	limit := c.cfg.redirectLimit()
	u := c.url
	for hop := 0; ; hop++ {
		tl, next, err := c.hop(ctx, u, method, body, mode == transport.ZeroRTT && hop == 0)
		res.Hops = append(res.Hops, tl)
		if err == nil && c.cfg.FailOnHTTPError && tl.Status >= 400 {
			err = fmt.Errorf("%s %s: status %d: %w", method, clipURL(u), tl.Status, ErrHTTPStatus)
		}
		if err != nil || next == nil || !c.cfg.FollowRedirects {
			return res.fail(err)
		}
		if hop >= limit {
			return res.fail(fmt.Errorf("probe: %d redirects followed and another one to %s: %w", limit, clipURL(next), ErrRedirectLimit))
		}
		if err := transport.CheckURL(next); err != nil {
			return res.fail(fmt.Errorf("probe: redirect to %s: %w", clipURL(next), err))
		}
		u = next
		// As curl: a 303 turns the request into a GET (a HEAD stays a
		// HEAD), a 301 or 302 turns a POST into a GET.
		if (tl.Status == http.StatusSeeOther && method != http.MethodHead) || (tl.Status <= http.StatusFound && method == http.MethodPost) {
			method, body = http.MethodGet, nil
		}
	}
}

// redirectLimit is how many redirects Do follows.
func (cfg Config) redirectLimit() int {
	switch {
	case cfg.MaxRedirects == 0:
		return DefaultMaxRedirects
	case cfg.MaxRedirects < 0:
		return 0
	}
	return cfg.MaxRedirects
}

func (cfg Config) method() string {
	return transport.RequestMethod(cfg.Method, cfg.Body != nil)
}

// newRequest builds the request of one hop, with curl's default headers.
func (c *Client) newRequest(ctx context.Context, u *url.URL, method string, body []byte, zeroRTT bool) (*http.Request, *sentBody, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	wire := method
	if zeroRTT {
		switch method {
		case http.MethodGet:
			wire = http3.MethodGet0RTT
		case http.MethodHead:
			wire = http3.MethodHead0RTT
		}
	}
	req, err := http.NewRequestWithContext(ctx, wire, u.String(), rd)
	if err != nil {
		return nil, nil, fmt.Errorf("probe: building request: %w", err)
	}
	var sent *sentBody
	if req.Body != nil && req.Body != http.NoBody {
		sent = &sentBody{ReadCloser: req.Body}
		req.Body = sent // ContentLength and GetBody stay as NewRequest set them
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "*/*")
	if u.User != nil {
		// As curl: credentials in the URL are sent as Basic auth (a -H
		// Authorization replaces them below).
		pw, _ := u.User.Password()
		req.SetBasicAuth(u.User.Username(), pw)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, vs := range c.cfg.Header {
		if len(vs) == 0 {
			req.Header.Del(k) // -H 'Name:' removes a default, as in curl
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	// net/http sends req.Host, never a Host field of req.Header.
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	return req, sent, nil
}

// sentBody counts the bytes of a request body that the transport took
// to send, curl's size_upload: all of it over HTTP/1.1, less or none
// when an HTTP/2 or HTTP/3 server answered before the body went out.
type sentBody struct {
	io.ReadCloser
	n atomic.Int64 // read on the transport's goroutine
}

func (b *sentBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// sentSize returns the body bytes the transport took so far.
func (b *sentBody) sentSize() int64 {
	if b == nil {
		return 0
	}
	return b.n.Load()
}

// SendsContentLength reports whether a request of method with a body of
// length n carries a Content-Length, as net/http writes it (which keeps
// it out of the request's Header): with a body, for POST, PUT and PATCH
// always, and over HTTP/1.1 for every other method but GET and HEAD.
func SendsContentLength(method string, n int64, http1 bool) bool {
	switch {
	case n > 0, method == http.MethodPost, method == http.MethodPut, method == http.MethodPatch:
		return true
	}
	return http1 && method != http.MethodGet && method != http.MethodHead
}

// redirect returns where a 3xx response points, or nil.
func redirect(u *url.URL, resp *http.Response) *url.URL {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil
	}
	loc, err := u.Parse(resp.Header.Get("Location"))
	if err != nil || resp.Header.Get("Location") == "" {
		return nil
	}
	return loc
}

// handshakeWait bounds the wait for a QUIC handshake that finishes after
// the response (0-RTT).
const handshakeWait = 2 * time.Second
