package tlsscan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// prober sends hand-built ClientHellos to one server with bounded
// concurrency. A refused or reset connection is retried after a growing
// pause, so a server that limits connections slows the scan down instead
// of failing it.
type prober struct {
	addr       string
	serverName string
	timeout    time.Duration
	sem        chan struct{}
	dialer     net.Dialer

	conns atomic.Int64 // connections opened
	mu    sync.Mutex
	rtt   time.Duration // smallest TCP connect time seen
}

// maxRetries bounds the retries of one ClientHello after a refusal.
const maxRetries = 4

func newProber(addr, serverName string, concurrency int, timeout time.Duration) *prober {
	return &prober{addr: addr, serverName: serverName, timeout: timeout, sem: make(chan struct{}, concurrency)}
}

// send sends h and reads the reply. A reply of any kind (ServerHello,
// alert, closed connection) is a result; only failures to talk to the
// server at all are errors.
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
		r, err := p.try(ctx, msg, wantKex)
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

func (p *prober) try(ctx context.Context, msg []byte, wantKex bool) (reply, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return reply{}, ctx.Err()
	}
	defer func() { <-p.sem }()
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	start := time.Now()
	c, err := p.dialer.DialContext(ctx, "tcp", p.addr)
	if err != nil {
		return reply{}, dialError{fmt.Errorf("connecting to %s: %w", p.addr, err)}
	}
	defer c.Close()
	p.noteRTT(time.Since(start))
	p.conns.Add(1)
	deadline, _ := ctx.Deadline()
	_ = c.SetDeadline(deadline)
	if _, err := c.Write(msg); err != nil {
		return reply{}, fmt.Errorf("sending ClientHello: %w", err)
	}
	r, err := readReply(c, wantKex)
	if r.hello != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) {
		// A server that closes or resets the connection has refused the offer.
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("reading the reply from %s: %w", p.addr, err)
	}
	return r, nil
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
