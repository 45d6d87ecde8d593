package load

import (
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
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
	pref   atomic.Int32
	tls    *tls.Config // nil for plain HTTP (and h2c)
	dialer net.Dialer
}

// newEndpoint derives the route, the address and the TLS configuration of
// a run. In New mode the configuration has no session cache and tickets
// off, so no handshake can resume; in Resume mode all connections share
// one cache.
func newEndpoint(cfg Config) (*endpoint, error) {
	u, err := url.Parse(cfg.Targets[0].URL)
	if err != nil {
		return nil, fmt.Errorf("parsing target URL: %w", err)
	}
	ep := &endpoint{addr: transport.HostPort(u)}
	if ep.addrs, err = route(cfg, ep.addr); err != nil {
		return nil, &RouteError{Addr: ep.addr, Err: err}
	}
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
	nc, err := connect(ctx, ep, func(ctx context.Context, addr string) (net.Conn, error) {
		return ep.dialer.DialContext(ctx, "tcp", addr)
	})
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

// connect tries the route's addresses with dial, the one that answered
// last first, until one answers or ctx ends; it returns the first error.
// With one address (the usual case) it is a single dial.
func connect[C any](ctx context.Context, ep *endpoint, dial func(context.Context, string) (C, error)) (C, error) {
	first := int(ep.pref.Load())
	var firstErr error
	for i := range ep.addrs {
		j := (first + i) % len(ep.addrs)
		c, err := dial(ctx, ep.addrs[j])
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
// host:port, go to: --connect-to applies first, then --resolve, as in
// curl; a host that is neither in --resolve nor an IP address is looked
// up once, here, rather than on every connection (as wrk and h2load do).
func route(cfg Config, addr string) ([]string, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portStr)
	}
	host = strings.ToLower(host)
	for _, c := range cfg.ConnectTo {
		if (c.FromHost == "" || c.FromHost == host) && (c.FromPort == 0 || c.FromPort == port) {
			host, port = cmp.Or(strings.ToLower(c.ToHost), host), cmp.Or(c.ToPort, port)
			break
		}
	}
	ips, err := routeIPs(cfg, host, port)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = netip.AddrPortFrom(ip, uint16(port)).String()
	}
	return out, nil
}

// routeIPs returns the addresses of host for the run's IP version: from
// --resolve, the host itself when it is an address, or DNS.
func routeIPs(cfg Config, host string, port int) ([]netip.Addr, error) {
	for _, r := range cfg.Resolve {
		if (r.Host == "*" || r.Host == host) && r.Port == port {
			if ips := filterIPs(r.Addrs, cfg.IPVersion); len(ips) > 0 {
				return ips, nil
			}
			return nil, fmt.Errorf("no IPv%d address in --resolve", cfg.IPVersion)
		}
	}
	ips := []netip.Addr{}
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = append(ips, ip)
	} else {
		// Run has no context to pass on here; the lookup is bounded by
		// the request timeout.
		ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
		defer cancel()
		network := map[int]string{4: "ip4", 6: "ip6"}[cfg.IPVersion]
		if ips, err = net.DefaultResolver.LookupNetIP(ctx, cmp.Or(network, "ip"), host); err != nil {
			return nil, err
		}
	}
	if ips = filterIPs(ips, cfg.IPVersion); len(ips) == 0 {
		return nil, fmt.Errorf("no IPv%d address for %s", cfg.IPVersion, host)
	}
	return ips, nil
}

// filterIPs keeps the addresses of IP version v (4 or 6; 0 keeps all).
func filterIPs(ips []netip.Addr, v int) []netip.Addr {
	var out []netip.Addr
	for _, ip := range ips {
		ip = ip.Unmap()
		if v == 0 || (v == 4) == ip.Is4() {
			out = append(out, ip)
		}
	}
	return out
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
