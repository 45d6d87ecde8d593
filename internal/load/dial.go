package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// endpoint is where and how a run connects; it is shared read-only by
// all workers.
type endpoint struct {
	addr string // the URL's host:port
	// addrs are where connections go, IP:port after --connect-to,
	// --resolve and DNS, in the order they are tried; pref is the index of
	// the one that answered last, tried first.
	addrs  []string
	aps    []netip.AddrPort // addrs parsed
	pref   atomic.Int32
	tls    *tls.Config   // nil for plain HTTP (and h2c)
	verify *verifyCache  // nil without verification (-k) or TLS
	shares *shareLearner // nil for plain HTTP
}

// newEndpoint derives the route, the address and the TLS configuration of
// a run. In Fresh mode the configuration has no session cache and tickets
// off, so no handshake can resume; in Resumed mode all connections share
// one cache.
func newEndpoint(ctx context.Context, cfg Config) (*endpoint, error) {
	u, err := url.Parse(cfg.Targets[0].URL)
	if err != nil {
		return nil, fmt.Errorf("parsing target URL: %w", err)
	}
	ep := &endpoint{addr: transport.HostPort(u)}
	if ep.aps, err = route(ctx, cfg, ep.addr); err != nil {
		return nil, &RouteError{Addr: ep.addr, Err: err}
	}
	for _, ap := range ep.aps {
		ep.addrs = append(ep.addrs, ap.String())
	}
	if u.Scheme != "https" {
		return ep, nil
	}
	// A fresh tls.Config, the run's own: the changes below touch no
	// caller's.
	tc, err := cfg.TLS.Config()
	if err != nil {
		return nil, err
	}
	if tc.ServerName == "" {
		tc.ServerName = u.Hostname()
	}
	switch cfg.Protocol {
	case transport.HTTP1:
		tc.NextProtos = []string{"http/1.1"}
	case transport.HTTP2:
		tc.NextProtos = []string{"h2"}
	case transport.HTTP3:
		tc.NextProtos = []string{"h3"}
	}
	switch cfg.Mode {
	case transport.Fresh:
		tc.ClientSessionCache = nil
		tc.SessionTicketsDisabled = true
	case transport.Resumed:
		tc.ClientSessionCache = tls.NewLRUClientSessionCache(max(64, cfg.Conns*cfg.Streams))
	}
	if !tc.InsecureSkipVerify {
		ep.verify = newVerifyCache(tc.RootCAs)
		ep.verify.install(tc)
	}
	// In keep-alive mode there is no session cache: every connection
	// makes a full handshake, so that no resumption happens silently.
	ep.tls = tc
	ep.shares = newShareLearner(tc, cfg.FirstVisit)
	return ep, nil
}

// dial opens a TCP connection and, for HTTPS, completes the TLS handshake,
// timing both. The handshake event is filled in either way.
func (ep *endpoint) dial(ctx context.Context, deadline time.Time, now func() int64, ev *event) (net.Conn, error) {
	ev.kind = handshakeEvent
	ev.start = now()
	var stop func() bool
	nc, err := connect(ctx, ep, func(ctx context.Context, i int) (c net.Conn, err error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, stop, err = dialTCP(ctx, ep.aps[i], deadline)
		return c, err
	})
	connected := now()
	ev.connect = connected - ev.start
	if err != nil {
		ev.end = connected
		return nil, fmt.Errorf("connect: %w", err)
	}
	// The connection's deadline bounds the handshake, and until stop the
	// run's end interrupts it: HandshakeContext would take a context
	// callback and a channel more per connection.
	defer stop()
	if ep.tls == nil {
		ev.end = connected
		return nc, nil
	}
	tc := tls.Client(nc, ep.shares.config())
	raw, _ := nc.(*rawConn)
	if raw != nil {
		raw.holdFlight(true)
	}
	err = tc.Handshake()
	if raw != nil {
		raw.holdFlight(false)
	}
	ev.end = now()
	ev.tls = ev.end - connected
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	ep.noteTLS(ev, tc.ConnectionState())
	return tc, nil
}

// connect tries the route's addresses with dial, the one that answered
// last first, until one answers or ctx ends; it returns the first error.
// dial is given the index of the address in ep.addrs and ep.aps.
// With one address (the usual case) it is a single dial.
func connect[C any](ctx context.Context, ep *endpoint, dial func(ctx context.Context, i int) (C, error)) (C, error) {
	first := int(ep.pref.Load())
	var firstErr error
	for i := range ep.addrs {
		j := (first + i) % len(ep.addrs)
		c, err := dial(ctx, j)
		if err == nil {
			if j != first {
				ep.pref.Store(int32(j))
			}
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	var zero C
	return zero, firstErr
}

// RouteError is returned by Run when a run has nowhere to connect: the
// host does not resolve, or has no address of the IP version asked for.
type RouteError struct {
	Addr string // the URL's host:port
	Err  error
}

func (e *RouteError) Error() string { return fmt.Sprintf("connecting to %s: %v", e.Addr, e.Err) }

// Unwrap returns the cause, a *net.DNSError for a name that does not
// resolve.
func (e *RouteError) Unwrap() error { return e.Err }

// route returns the addresses that the connections for addr, the URL's
// host:port, go to, worked out once per run: a host name is looked up
// here rather than on every connection (as wrk and h2load do), within the
// request timeout.
func route(ctx context.Context, cfg Config, addr string) ([]netip.AddrPort, error) {
	d := transport.Dialer{Routes: cfg.Routes}
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	return d.Lookup(ctx, addr)
}

// noteTLS records a handshake's parameters and learns the server's
// group from it. A resumed TLS 1.2 handshake exchanges no key, though
// crypto/tls reports the group of the session's first handshake: it is
// left out, so that the report does not show a key exchange that did not
// happen.
func (ep *endpoint) noteTLS(ev *event, cs tls.ConnectionState) {
	ev.version, ev.cipher, ev.curve, ev.resumed = cs.Version, cs.CipherSuite, cs.CurveID, cs.DidResume
	ev.retried = cs.HelloRetryRequest
	if cs.DidResume && cs.Version <= tls.VersionTLS12 {
		ev.curve = 0
	}
	ep.shares.learn(ev.curve)
}

// conns tracks the open connections of a run so that an interrupted run
// can close them all and unblock their workers at once.
type conns struct {
	mu     sync.Mutex
	open   map[io.Closer]struct{}
	closed bool
}

// add registers c; it reports false (and closes c) once the run is closing.
func (s *conns) add(c io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return false
	}
	if s.open == nil {
		s.open = map[io.Closer]struct{}{}
	}
	s.open[c] = struct{}{}
	return true
}

func (s *conns) remove(c io.Closer) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
	c.Close()
}

// removeQuiet unregisters c and closes its TCP connection without the
// TLS close_notify alert (see h1Worker.closeAnnounced).
func (s *conns) removeQuiet(c *tls.Conn) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
	c.NetConn().Close()
}

func (s *conns) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.open {
		c.Close()
	}
	clear(s.open)
}
