package page

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// connRec is one connection of a load, as it is dialed and used.
type connRec struct {
	id                            int
	key                           poolKey
	proto, tlsVersion             string
	resumed                       bool
	start, connected, ready, last time.Time
	requests, first               int // requests sent; the ID of the first
	err                           error
	tcp                           *transport.Conn     // TCP connections
	quic                          *transport.QUICConn // QUIC connections
}

// bytes returns the connection's handshake and application bytes.
func (c *connRec) bytes() (hs, app transport.Counts) {
	switch {
	case c.quic != nil:
		hs, _ = c.quic.Packets.Handshake()
		return hs, c.quic.Packets.App()
	case c.tcp != nil:
		hs, _ = c.tcp.Handshake()
		return hs, c.tcp.App()
	}
	return transport.Counts{}, transport.Counts{}
}

// rtt is one round trip as the connection's dial measured it: the TCP
// connect, or the QUIC handshake; zero when the dial did not complete.
func (c *connRec) rtt() time.Duration {
	switch {
	case c.quic != nil && !c.ready.IsZero():
		return c.ready.Sub(c.start)
	case c.tcp != nil && !c.connected.IsZero():
		return c.connected.Sub(c.start)
	}
	return 0
}

// record returns the Conn of the result, times from start.
func (c *connRec) record(start time.Time) Conn {
	off := func(t time.Time) time.Duration {
		if t.IsZero() {
			return 0
		}
		return t.Sub(start)
	}
	out := Conn{ID: c.id, Origin: c.key.origin, Anonymous: c.key.anon, Proto: c.proto, TLSVersion: c.tlsVersion,
		Resumed: c.resumed, Start: off(c.start), Connected: off(c.connected), Ready: off(c.ready), End: off(c.last), Requests: c.requests}
	if c.err != nil {
		out.Error = c.err.Error()
	}
	return out
}

// newConn registers a connection of p that starts now.
func (l *loader) newConn(p *pool) *connRec {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := &connRec{id: len(l.conns) + 1, key: p.key, start: time.Now()}
	l.conns = append(l.conns, c)
	return c
}

// tlsConfig is the load's TLS configuration: one ALPN protocol, and the
// session cache of a warm load.
func (l *loader) tlsConfig() *tls.Config {
	cfg := l.cfg.tlsConf.Clone()
	cfg.NextProtos = []string{l.cfg.Protocol.alpn()}
	cfg.ClientSessionCache = l.cfg.Sessions
	return cfg
}

// dialTCP opens a TCP connection for p, with TLS for https. The connect
// time comes from the dialer's trace, the handshake's end from its return.
func (l *loader) dialTCP(p *pool, c *connRec) (net.Conn, error) {
	var mu sync.Mutex
	trace := &httptrace.ClientTrace{ConnectDone: func(_, _ string, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil && c.connected.IsZero() {
			c.connected = time.Now()
		}
	}}
	ctx := httptrace.WithClientTrace(l.ctx, trace)
	addr := hostPort(p)
	var conn net.Conn
	if p.u.Scheme == "https" {
		tc, err := l.cfg.Dialer.DialTLS(ctx, "tcp", addr, l.tlsConfig())
		if err != nil {
			return nil, refusedALPN(err, l.cfg.Protocol)
		}
		cs := tc.ConnectionState()
		c.tcp, c.proto, c.tlsVersion, c.resumed = tc.NetConn().(*transport.Conn), cs.NegotiatedProtocol, tls.VersionName(cs.Version), cs.DidResume
		conn = tc
	} else {
		tcp, err := l.cfg.Dialer.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		c.tcp, conn = tcp, tcp
		c.proto = "http/1.1"
		if l.cfg.Protocol == HTTP2C {
			c.proto = "h2c"
		}
	}
	mu.Lock()
	defer mu.Unlock()
	c.ready = time.Now()
	if c.connected.IsZero() {
		c.connected = c.ready
	}
	return conn, checkALPN(l.cfg.Protocol, p, c)
}

// checkALPN fails a connection that did not negotiate the load's
// protocol: a server without HTTP/2 answers an h2-only offer with no ALPN.
func checkALPN(proto Protocol, p *pool, c *connRec) error {
	want := proto.alpn()
	if p.u.Scheme != "https" || c.proto == want || (want == "http/1.1" && c.proto == "") {
		return nil
	}
	return fmt.Errorf("%w: %s negotiated ALPN %q, not %q", ErrProtocol, p.key.origin, c.proto, want)
}

// alertNoApplicationProtocol is the TLS alert of a server that speaks
// none of the ALPN protocols offered (RFC 7301, section 3.2).
const alertNoApplicationProtocol tls.AlertError = 120

// refusedALPN marks as a protocol mismatch a handshake that the server
// refused for want of the one protocol offered. Over QUIC the alert
// comes as a tls.AlertError; over TCP crypto/tls keeps its alert type
// private and reports the alert's description.
func refusedALPN(err error, proto Protocol) error {
	var alert tls.AlertError
	if (errors.As(err, &alert) && alert == alertNoApplicationProtocol) || strings.HasSuffix(err.Error(), alertNoApplicationProtocol.Error()) {
		return fmt.Errorf("%w: the server does not speak %s (%w)", ErrProtocol, proto.alpn(), err)
	}
	return err
}

// hostPort is the host:port of p's origin.
func hostPort(p *pool) string {
	_, port, _ := net.SplitHostPort(p.key.origin[len(p.u.Scheme)+3:])
	return net.JoinHostPort(p.u.Hostname(), port)
}

// dialQUIC opens p's QUIC connection and its HTTP/3 client.
func (l *loader) dialQUIC(p *pool, c *connRec) (*http3.ClientConn, error) {
	qc, err := l.cfg.Dialer.DialQUIC(l.ctx, hostPort(p), l.tlsConfig(), &quic.Config{HandshakeIdleTimeout: l.cfg.RequestTimeout})
	if err != nil {
		return nil, refusedALPN(err, l.cfg.Protocol)
	}
	cs := qc.ConnectionState().TLS
	c.quic, c.ready = qc, time.Now()
	c.proto, c.tlsVersion, c.resumed = cs.NegotiatedProtocol, tls.VersionName(cs.Version), cs.DidResume
	t := &http3.Transport{DisableCompression: true, MaxResponseHeaderBytes: int(transport.HeaderLimit(l.cfg.MaxHeaderBytes))}
	return t.NewClientConn(qc.Conn), checkALPN(l.cfg.Protocol, p, c)
}

// newH2 starts HTTP/2 on an open connection: net/http's
// Transport.NewClientConn, dialing through a function that hands it conn.
func newH2(ctx context.Context, p *pool, conn net.Conn, maxHeader int64) (*http.ClientConn, error) {
	give := transport.HandOver(conn)
	t := &http.Transport{DialContext: give, DialTLSContext: give, DisableCompression: true, MaxResponseHeaderBytes: transport.HeaderLimit(maxHeader)}
	t.Protocols = new(http.Protocols)
	if p.u.Scheme == "https" {
		t.Protocols.SetHTTP2(true)
	} else {
		t.Protocols.SetUnencryptedHTTP2(true)
	}
	cc, err := t.NewClientConn(ctx, p.u.Scheme, hostPort(p))
	if err != nil {
		return nil, fmt.Errorf("starting HTTP/2: %w", err)
	}
	return cc, nil
}
