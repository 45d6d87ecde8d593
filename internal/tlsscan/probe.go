package tlsscan

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/quic-go/quic-go"
)

// prober sends hand-built ClientHellos to one server with bounded
// concurrency. A refused or reset connection is retried after a growing
// pause, so a server that limits connections slows the scan down instead
// of failing it.
type prober struct {
	addr       string
	serverName string
	timeout    time.Duration
	dialer     *countingDialer
	// certGroup is the curve of the server's ECDSA certificate, if known.
	// A TLS 1.2 server signs with it only for a client that lists it
	// among its groups (RFC 8422, 5.1.1), so it is listed with each ECDHE
	// group asked about. It is set before the group scan starts, by
	// enumerate's versionsKnown, which waits for the first handshake.
	certGroup tls.CurveID

	mu    sync.Mutex
	rtt   time.Duration // smallest TCP connect time seen
	notes []string      // replies that could not be read, one per probe
}

// countingDialer opens every connection of an audit, TCP and QUIC, and
// counts them: the one place the report's connection count comes from.
// It also bounds them: each TCP connection holds one of its slots from
// before it is dialed until it is closed (a QUIC connection's slot is
// held by its caller, see h3Client.get), so that no more than the
// audit's concurrency are open at once, whichever check opens them.
type countingDialer struct {
	net.Dialer
	// dial, when set, opens the TCP connections in place of net.Dialer
	// (a caller's routes).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// slots bounds the connections open at once; nil bounds nothing.
	slots *slots
	// timeout bounds each connection from the moment it has its slot: its
	// connect, then its use (see slotConn.deadline); 0 bounds neither.
	timeout time.Duration
	n       atomic.Int64
}

// newCountingDialer returns a dialer that keeps at most concurrency
// connections open at once, each bounded by timeout; dial as in
// countingDialer.
func newCountingDialer(concurrency int, timeout time.Duration,
	dial func(ctx context.Context, network, addr string) (net.Conn, error)) *countingDialer {
	return &countingDialer{dial: dial, slots: newSlots(concurrency), timeout: timeout}
}

// DialContext opens a connection as open does, with its deadline set:
// for users that set none of their own (net/http's Transport).
func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.open(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if !c.deadline.IsZero() {
		_ = c.SetDeadline(c.deadline)
	}
	return c, nil
}

// open waits for a slot, at the priority ctx carries (see withPriority),
// then opens a TCP connection within the timeout and counts it. The wait
// is bounded by ctx only: the timeout starts when the slot is granted,
// so that a connection that waited behind others has its full time. The
// connection's user bounds its use by its deadline.
func (d *countingDialer) open(ctx context.Context, network, addr string) (*slotConn, error) {
	release := func() {}
	if d.slots != nil {
		if err := d.slots.acquire(ctx, priorityOf(ctx)); err != nil {
			return nil, err
		}
		release = d.slots.release
	}
	dial := d.Dialer.DialContext
	if d.dial != nil {
		dial = d.dial
	}
	start := time.Now()
	var deadline time.Time
	dctx := ctx
	if d.timeout > 0 {
		deadline = start.Add(d.timeout)
		var cancel context.CancelFunc
		dctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	c, err := dial(dctx, network, addr)
	if err != nil {
		release()
		return nil, err
	}
	d.n.Add(1)
	return &slotConn{Conn: c, connect: time.Since(start), deadline: deadline, release: release}, nil
}

// dialQUIC opens a QUIC connection and counts it. Its caller holds the
// connection's slot (see h3Client.get).
func (d *countingDialer) dialQUIC(ctx context.Context, addr string, tc *tls.Config, qc *quic.Config) (*quic.Conn, error) {
	c, err := quic.DialAddrEarly(ctx, addr, tc, qc)
	if err == nil {
		d.n.Add(1)
	}
	return c, err
}

// maxRetries bounds the retries of one ClientHello after a refusal.
const maxRetries = 4

// newProber returns a prober that dials with d, whose slots and timeout
// bound its connections; nil means a dialer of its own, with concurrency
// slots and timeout.
func newProber(addr, serverName string, concurrency int, timeout time.Duration, d *countingDialer) *prober {
	if d == nil {
		d = newCountingDialer(concurrency, timeout, nil)
	}
	return &prober{addr: addr, serverName: serverName, timeout: timeout, dialer: d}
}

// send sends h and reads the reply. A reply of any kind (ServerHello,
// alert, closed connection) is a result. A reply that cannot be read
// counts as a refusal and is noted (see notesTaken); only failures to
// reach the server and the end of ctx are errors.
func (p *prober) send(ctx context.Context, h clientHello, wantKex bool) (reply, error) {
	if h.serverName == "" {
		h.serverName = p.serverName
	}
	msg, err := h.marshal()
	if err != nil {
		return reply{}, err
	}
	pause := 25 * time.Millisecond
	for attempt := 0; ; attempt++ {
		r, err := p.try(ctx, msg, wantKex, h)
		if err == nil || !refused(err) || attempt == maxRetries {
			return r, err
		}
		select {
		case <-ctx.Done():
			return reply{}, ctx.Err()
		case <-time.After(pause):
		}
		pause *= 2
	}
}

func (p *prober) try(parent context.Context, msg []byte, wantKex bool, h clientHello) (reply, error) {
	// The dialer waits for a slot; the timeout runs from then.
	c, err := p.dialer.open(parent, "tcp", p.addr)
	if err != nil {
		if parent.Err() != nil {
			return reply{}, parent.Err()
		}
		return reply{}, dialError{fmt.Errorf("connecting to %s: %w", p.addr, err)}
	}
	defer c.Close()
	p.noteRTT(c.connect)
	ctx, cancel := c.within(parent, p.timeout)
	defer cancel()
	// The deadline ends a silent server's probe; the AfterFunc ends it at
	// once when the audit is stopped.
	deadline, _ := ctx.Deadline()
	_ = c.SetDeadline(deadline)
	defer context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })()
	r, err := p.exchange(c, msg, wantKex)
	switch {
	case parent.Err() != nil:
		return reply{}, parent.Err()
	case err != nil:
		note := fmt.Sprintf("%s: %v (counted as not accepted)", h, err)
		if held, ok := parent.Value(heldNotesKey{}).(*heldNotes); ok {
			held.add(note)
		} else {
			p.note(note)
		}
		return reply{}, nil
	}
	return r, nil
}

// exchange writes the ClientHello and reads the reply. A server that
// closes or resets the connection has refused the offer: that is a reply.
func (p *prober) exchange(c net.Conn, msg []byte, wantKex bool) (reply, error) {
	if _, err := c.Write(msg); err != nil {
		return reply{}, fmt.Errorf("sending the ClientHello to %s: %w", p.addr, err)
	}
	r, err := readReply(c, wantKex)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return r, nil
	}
	return reply{}, fmt.Errorf("reading the reply from %s: %w", p.addr, err)
}

// note keeps the description of a probe whose reply could not be read.
func (p *prober) note(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notes = append(p.notes, s)
}

// heldNotes keeps the notes of offers made before it is known whether
// they count: those of a search that starts before the first offer says
// whether the server has the version at all.
type heldNotes struct {
	mu    sync.Mutex
	notes []string
}

type heldNotesKey struct{}

// holdNotes returns ctx whose offers' notes go to the returned heldNotes
// instead of the prober.
func holdNotes(ctx context.Context) (context.Context, *heldNotes) {
	h := &heldNotes{}
	return context.WithValue(ctx, heldNotesKey{}, h), h
}

func (h *heldNotes) add(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notes = append(h.notes, s)
}

// keep passes the notes held to p.
func (h *heldNotes) keep(p *prober) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.notes {
		p.note(n)
	}
}

// notesTaken returns the notes of the probes so far.
func (p *prober) notesTaken() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.notes)
}

// dialError marks a failure to connect, as opposed to a reply.
type dialError struct{ err error }

func (d dialError) Error() string { return d.err.Error() }
func (d dialError) Unwrap() error { return d.err }

func (p *prober) noteRTT(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rtt == 0 || d < p.rtt {
		p.rtt = d
	}
}

// RTT returns the smallest TCP connect time seen, an estimate of the
// round-trip time (the SYN and SYN-ACK make one round trip).
func (p *prober) RTT() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rtt
}

// refused reports connection attempts the server turned away for now
// (a full accept queue, a connection limit), which are worth a retry.
func refused(err error) bool {
	var d dialError
	return errors.As(err, &d) && (errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EAGAIN))
}
