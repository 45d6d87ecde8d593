package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"sync"

	"github.com/quic-go/quic-go"
)

// QUICConn is a QUIC connection on its own counted UDP socket.
type QUICConn struct {
	*quic.Conn
	// Packets counts the UDP payload bytes; its Handshake counts are
	// set when the QUIC handshake completes (they include any 0-RTT
	// request sent before that).
	Packets *PacketConn
	settled chan struct{} // closed once the handshake completed or failed, and was traced
	once    sync.Once
}

// DialQUIC opens a QUIC connection for addr, the host:port of a URL, on a
// fresh UDP socket, with --connect-to, --resolve and the IP version
// applied, and returns after the handshake. The QUIC handshake is
// reported to the context's trace as the TLS handshake (QUIC has no
// separate transport handshake). The socket closes with the connection.
func (d *Dialer) DialQUIC(ctx context.Context, addr string, cfg *tls.Config, qcfg *quic.Config) (*QUICConn, error) {
	return d.dialQUIC(ctx, addr, cfg, qcfg, false)
}

// DialQUICEarly is DialQUIC returning as soon as data can be sent: before
// the handshake completes when cfg's session cache holds a ticket that
// allows 0-RTT. TLSHandshakeDone then fires after it returns.
func (d *Dialer) DialQUICEarly(ctx context.Context, addr string, cfg *tls.Config, qcfg *quic.Config) (*QUICConn, error) {
	return d.dialQUIC(ctx, addr, cfg, qcfg, true)
}

func (d *Dialer) dialQUIC(ctx context.Context, addr string, cfg *tls.Config, qcfg *quic.Config, early bool) (*QUICConn, error) {
	targets, err := d.lookup(ctx, addr)
	if err != nil {
		return nil, err
	}
	target := net.UDPAddrFromAddrPort(targets[0])
	udp, err := net.ListenUDP(d.network("udp"), nil)
	if err != nil {
		return nil, fmt.Errorf("opening a UDP socket: %w", err)
	}
	pc := NewPacketConn(udp)
	tr := &quic.Transport{Conn: pc}
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.TLSHandshakeStart != nil {
		trace.TLSHandshakeStart()
	}
	dial := tr.Dial
	if early {
		dial = tr.DialEarly
	}
	conn, err := dial(ctx, target, withServerName(cfg, addr), qcfg)
	if err != nil {
		if trace != nil && trace.TLSHandshakeDone != nil {
			trace.TLSHandshakeDone(tls.ConnectionState{}, err)
		}
		tr.Close()
		return nil, err
	}
	qc := &QUICConn{Conn: conn, Packets: pc, settled: make(chan struct{})}
	if !early {
		// Dial returned after the handshake: record its end here, in
		// order, rather than from a goroutine that may run late.
		qc.settle(trace)
	}
	go qc.watch(tr, trace)
	return qc, nil
}

// watchQUIC marks the end of the handshake and closes the socket when the
// connection ends.
func (c *QUICConn) watch(tr *quic.Transport, trace *httptrace.ClientTrace) {
	c.settle(trace)
	<-c.Context().Done()
	tr.Close()
}

// settle waits for the end of the handshake, marks the byte counts and
// reports it to the trace, once.
func (c *QUICConn) settle(trace *httptrace.ClientTrace) {
	c.once.Do(func() {
		defer close(c.settled)
		select {
		case <-c.HandshakeComplete():
			c.Packets.markHandshake()
			if trace != nil && trace.TLSHandshakeDone != nil {
				trace.TLSHandshakeDone(c.ConnectionState().TLS, nil)
			}
		case <-c.Context().Done():
			if trace != nil && trace.TLSHandshakeDone != nil {
				trace.TLSHandshakeDone(tls.ConnectionState{}, context.Cause(c.Context()))
			}
		}
	})
}

// ErrHandshakeIncomplete is returned by WaitHandshake when the QUIC
// handshake did not finish.
var ErrHandshakeIncomplete = errors.New("quic handshake incomplete")

// WaitHandshake waits until the QUIC handshake completed (its byte
// counts marked and its trace hook called), the connection ended or ctx
// is done.
func (c *QUICConn) WaitHandshake(ctx context.Context) error {
	select {
	case <-c.settled:
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrHandshakeIncomplete, ctx.Err())
	}
	select {
	case <-c.HandshakeComplete():
		return nil
	default:
		return fmt.Errorf("%w: %w", ErrHandshakeIncomplete, context.Cause(c.Context()))
	}
}
