package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/netip"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
)

// QUICConn is a QUIC connection on its own counted UDP socket.
type QUICConn struct {
	*quic.Conn
	// Packets counts the UDP payload bytes, split into handshake and
	// application datagrams.
	Packets     *PacketConn
	closeSocket func()        // stops the QUIC transport and closes the socket
	settled     chan struct{} // closed once the handshake completed or failed, and was traced
	once        sync.Once
	// attempts ends when every attempt of the dial that made the
	// connection has returned, the losers included: none reports to the
	// trace after that.
	attempts *sync.WaitGroup
}

// DialQUIC opens a QUIC connection for addr, the host:port of a URL, on a
// fresh UDP socket, with --connect-to, --resolve and the IP version
// applied, and returns after the handshake. The QUIC handshake is
// reported to the context's trace as the TLS handshake (QUIC has no
// separate transport handshake), and each address tried as a "udp"
// connect attempt. The socket closes with the connection.
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
	targets, err := d.Lookup(ctx, addr)
	if err != nil {
		return nil, err
	}
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.TLSHandshakeStart != nil {
		trace.TLSHandshakeStart()
	}
	qc, err := d.raceQUIC(ctx, targets, withServerName(cfg, addr), qcfg, early)
	if err != nil {
		if trace != nil && trace.TLSHandshakeDone != nil {
			trace.TLSHandshakeDone(tls.ConnectionState{}, err)
		}
		return nil, err
	}
	if !early {
		// Dial returned after the handshake: record its end here, in
		// order, rather than from a goroutine that may run late.
		qc.settle(trace)
	}
	go qc.watch(trace)
	return qc, nil
}

// attemptDelay is how long a QUIC dial waits for one address before it
// also tries the next: RFC 8305's Connection Attempt Delay. UDP has no
// refused connection to fail fast on, so without it an unreachable first
// address would cost the whole handshake timeout.
const attemptDelay = 250 * time.Millisecond

// maxAttempts bounds the addresses a QUIC dial tries.
const maxAttempts = 4

// errGaveUp ends the QUIC dial attempts that lost the race.
var errGaveUp = errors.New("gave up: another address answered first")

// quicResult is the outcome of one address's QUIC dial.
type quicResult struct {
	qc  *QUICConn
	err error
}

// attempt states of a QUIC dial race.
const (
	attemptIdle      = iota // waiting for its turn
	attemptRunning          // ConnectStart reported, ConnectDone not yet
	attemptFinished         // ConnectDone reported
	attemptAbandoned        // the race is over: reports nothing more
)

// race tracks the attempts of one QUIC dial so that the trace sees
// exactly one ConnectDone per ConnectStart, and nothing for an address
// that was never dialed.
type race struct {
	ctx   context.Context
	mu    sync.Mutex
	state []int
}

// start reports attempt i's start, unless the race is already over.
func (r *race) start(i int, target netip.AddrPort) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state[i] != attemptIdle {
		return false
	}
	r.state[i] = attemptRunning
	if trace := httptrace.ContextClientTrace(r.ctx); trace != nil && trace.ConnectStart != nil {
		trace.ConnectStart("udp", target.String())
	}
	return true
}

// finish reports attempt i's end, unless the winner already closed it.
func (r *race) finish(i int, target netip.AddrPort, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state[i] == attemptRunning {
		r.state[i] = attemptFinished
		traceAttempt(r.ctx, target, err)
	}
}

// end closes the race: attempts still running are reported as given up
// now, before the request goes on, and nothing is reported after.
func (r *race) end(targets []netip.AddrPort) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, s := range r.state {
		if s == attemptRunning {
			traceAttempt(r.ctx, targets[i], errGaveUp)
		}
		r.state[i] = attemptAbandoned
	}
}

// raceQUIC dials the targets in order, starting the next one every
// attemptDelay while none has answered, and returns the first connection
// that succeeds; the others are cancelled, or closed if they succeed too.
func (d *Dialer) raceQUIC(ctx context.Context, targets []netip.AddrPort, cfg *tls.Config, qcfg *quic.Config, early bool) (*QUICConn, error) {
	targets = targets[:min(len(targets), maxAttempts)]
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rc := &race{ctx: ctx, state: make([]int, len(targets))}
	results := make(chan quicResult, len(targets))
	var attempts sync.WaitGroup
	for i, t := range targets {
		attempts.Go(func() {
			timer := time.NewTimer(time.Duration(i) * attemptDelay)
			defer timer.Stop()
			select {
			case <-timer.C:
				if !rc.start(i, t) {
					results <- quicResult{nil, errGaveUp}
					return
				}
				qc, err := d.dialQUICAddr(ctx, t, cfg, qcfg, early)
				rc.finish(i, t, err)
				results <- quicResult{qc, err}
			case <-ctx.Done():
				results <- quicResult{nil, ctx.Err()}
			}
		})
	}
	var errs []error
	for i := range targets {
		r := <-results
		if r.err == nil {
			r.qc.attempts = &attempts
			rc.end(targets)
			go closeLosers(results, len(targets)-i-1)
			return r.qc, nil
		}
		errs = append(errs, r.err)
	}
	return nil, errors.Join(errs...)
}

// traceAttempt reports one address's QUIC dial to the trace as a "udp"
// connect attempt, which lasts the whole QUIC handshake.
func traceAttempt(ctx context.Context, target netip.AddrPort, err error) {
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.ConnectDone != nil {
		trace.ConnectDone("udp", target.String(), err)
	}
}

// closeLosers closes the connections of the n remaining results.
func closeLosers(results <-chan quicResult, n int) {
	for range n {
		if r := <-results; r.qc != nil {
			r.qc.CloseWithError(0, "")
			r.qc.closeSocket()
		}
	}
}

// dialQUICAddr opens a counted UDP socket and dials target from it.
func (d *Dialer) dialQUICAddr(ctx context.Context, target netip.AddrPort, cfg *tls.Config, qcfg *quic.Config, early bool) (*QUICConn, error) {
	var pc *PacketConn
	count := func(udp *net.UDPConn) net.PacketConn { pc = NewPacketConn(udp); return pc }
	conn, closeSocket, err := dialFromSocket(ctx, d.network("udp"), net.UDPAddrFromAddrPort(target), cfg, qcfg, early, count)
	if err != nil {
		return nil, err
	}
	return &QUICConn{Conn: conn, Packets: pc, closeSocket: closeSocket, settled: make(chan struct{})}, nil
}

// DialQUICAddr dials addr, an IP address and port, from a UDP socket of
// its own that reports ICMP errors, and closes the socket when the
// connection ends. It is the plain dial of the load engine: DialQUIC adds
// routing, tracing and byte counts.
func DialQUICAddr(ctx context.Context, addr string, cfg *tls.Config, qcfg *quic.Config) (*quic.Conn, error) {
	target, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	conn, closeSocket, err := dialFromSocket(ctx, "udp", target, cfg, qcfg, false, nil)
	if err != nil {
		return nil, err
	}
	go func() {
		<-conn.Context().Done()
		closeSocket()
	}()
	return conn, nil
}

// dialFromSocket dials target over QUIC from a new UDP socket (ListenUDP),
// wrapped by wrap when it is not nil. quic-go leaves a socket it was
// given open, so the returned function stops the transport and closes
// the socket; a failed dial has done so already.
func dialFromSocket(ctx context.Context, network string, target *net.UDPAddr, cfg *tls.Config, qcfg *quic.Config,
	early bool, wrap func(*net.UDPConn) net.PacketConn) (*quic.Conn, func(), error) {
	udp, err := ListenUDP(network)
	if err != nil {
		return nil, nil, err
	}
	var pc net.PacketConn = udp
	if wrap != nil {
		pc = wrap(udp)
	}
	tr := &quic.Transport{Conn: pc}
	closeSocket := func() {
		tr.Close()
		udp.Close()
	}
	dial := tr.Dial
	if early {
		dial = tr.DialEarly
	}
	conn, err := dial(ctx, target, cfg, qcfg)
	if err != nil {
		closeSocket()
		return nil, nil, err
	}
	return conn, closeSocket, nil
}

// watch marks the end of the handshake and closes the socket when the
// connection ends.
func (c *QUICConn) watch(trace *httptrace.ClientTrace) {
	c.settle(trace)
	<-c.Context().Done()
	c.closeSocket()
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
