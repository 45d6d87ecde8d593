package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// endpoint is where and how a run connects; it is shared read-only by
// all workers.
type endpoint struct {
	addr   string      // host:port
	tls    *tls.Config // nil for plain HTTP
	dialer net.Dialer
}

// newEndpoint derives the address and the TLS configuration of a run. In
// New mode the configuration has no session cache and tickets off, so no
// handshake can resume; in Resume mode all connections share one cache.
func newEndpoint(cfg Config) (*endpoint, error) {
	u, err := url.Parse(cfg.Targets[0].URL)
	if err != nil {
		return nil, fmt.Errorf("parsing target URL: %w", err)
	}
	ep := &endpoint{addr: transport.HostPort(u)}
	if u.Scheme != "https" {
		return ep, nil
	}
	var tc *tls.Config
	if cfg.TLS != nil {
		tc = cfg.TLS.Clone()
	} else {
		tc = &tls.Config{}
	}
	if tc.ServerName == "" {
		tc.ServerName = u.Hostname()
	}
	switch cfg.Protocol {
	case HTTP1:
		tc.NextProtos = []string{"http/1.1"}
	case HTTP2:
		tc.NextProtos = []string{"h2"}
	case HTTP3:
		tc.NextProtos = []string{"h3"}
	}
	switch cfg.Mode {
	case New:
		tc.ClientSessionCache = nil
		tc.SessionTicketsDisabled = true
	case Resume:
		tc.ClientSessionCache = tls.NewLRUClientSessionCache(max(64, cfg.Conns*cfg.Streams))
	}
	// In keep-alive mode a session cache given in cfg.TLS is used as is;
	// without one every connection makes a full handshake, so that no
	// resumption happens silently.
	ep.tls = tc
	return ep, nil
}

// dial opens a TCP connection and, for HTTPS, completes the TLS handshake,
// timing both. The handshake event is filled in either way.
func (ep *endpoint) dial(ctx context.Context, deadline time.Time, now func() int64, ev *event) (net.Conn, error) {
	ev.kind = handshakeEvent
	ev.start = now()
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	nc, err := ep.dialer.DialContext(ctx, "tcp", ep.addr)
	connected := now()
	ev.connect = connected - ev.start
	if err != nil {
		ev.end = connected
		return nil, fmt.Errorf("connect: %w", err)
	}
	if ep.tls == nil {
		ev.end = connected
		return nc, nil
	}
	tc := tls.Client(nc, ep.tls)
	err = tc.HandshakeContext(ctx)
	ev.end = now()
	ev.tls = ev.end - connected
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake: %w", err)
	}
	noteTLS(ev, tc.ConnectionState())
	return tc, nil
}

func noteTLS(ev *event, cs tls.ConnectionState) {
	ev.version, ev.cipher, ev.curve, ev.resumed = cs.Version, cs.CipherSuite, cs.CurveID, cs.DidResume
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

func (s *conns) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.open {
		c.Close()
	}
	clear(s.open)
}
