package tlsscan

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/stats"
)

// Resumption is what the resumption checks found. A nil *bool means the
// check did not run (the server lacks the version it needs).
type Resumption struct {
	// TLS12SessionID: the server resumed a TLS 1.2 session by session ID.
	TLS12SessionID *bool `json:"tls12_session_id"`
	// TLS12Ticket: the server resumed a TLS 1.2 session by ticket.
	TLS12Ticket *bool `json:"tls12_ticket"`
	// TLS12Rounds is the round trips of a full TLS 1.2 handshake and
	// TLS12ResumedRounds of one resumed by ticket, counted on the wire.
	TLS12Rounds        int `json:"tls12_rounds,omitempty"`
	TLS12ResumedRounds int `json:"tls12_resumed_rounds,omitempty"`
	// TLS12TicketHint is the ticket lifetime hint in seconds (0: none given).
	TLS12TicketHint uint32 `json:"tls12_ticket_hint_s,omitempty"`
	// TLS13PSK: the server resumed a TLS 1.3 session with a PSK ticket.
	TLS13PSK *bool `json:"tls13_psk"`
	// TLS13TicketLifetime is the lifetime of TLS 1.3 tickets in seconds.
	TLS13TicketLifetime uint32 `json:"tls13_ticket_lifetime_s,omitempty"`
	// MaxEarlyData is the early data a TLS 1.3 ticket over TCP allows
	// (0: 0-RTT not offered).
	MaxEarlyData uint32 `json:"max_early_data"`
	// Version is the version the hit rate was measured with.
	Version string `json:"version,omitempty"`
	// Attempts and Resumed give the hit rate: Resumed of Attempts
	// reconnections resumed their session.
	Attempts int `json:"attempts"`
	Resumed  int `json:"resumed"`
	// FullHandshake and ResumedHandshake are median handshake times.
	FullHandshake    Duration `json:"full_handshake_ns"`
	ResumedHandshake Duration `json:"resumed_handshake_ns,omitempty"`
}

func boolPtr(b bool) *bool { return &b }

// checkResumption runs the resumption checks for the versions the server
// supports; attempts is K of "resumed N of K". The TLS 1.2 checks and the
// hit rate run side by side. Without TLS 1.3 the hit rate is measured
// with TLS 1.2, where it stands only if the TLS 1.2 checks find tickets
// (crypto/tls resumes TLS 1.2 by ticket alone): it is measured beside
// them all the same, aside, and kept or dropped when they end, so that
// the audit waits for the longer of the two, not for both in turn.
func checkResumption(ctx context.Context, t *target, versions []uint16, attempts int) (Resumption, error) {
	var res, rate Resumption
	var tls12Err, rateErr error
	var wg sync.WaitGroup
	tls13, tls12 := slices.Contains(versions, VersionTLS13), slices.Contains(versions, VersionTLS12)
	rateCtx, stopRate := context.WithCancel(ctx)
	defer stopRate()
	switch {
	case tls13:
		wg.Go(func() { rateErr = t.hitRate(ctx, &rate, VersionTLS13, attempts) })
	case tls12:
		wg.Go(func() { rateErr = t.hitRate(rateCtx, &rate, VersionTLS12, attempts) })
	}
	if tls12 {
		// A TLS 1.2 that Go cannot speak (suites it does not implement)
		// leaves the TLS 1.3 checks to run.
		if tls12Err = t.resumeTLS12(ctx, &res); tls12Err != nil && ctx.Err() == nil {
			tls12Err = fmt.Errorf("TLS 1.2: %w", tls12Err)
		}
		if !tls13 && (res.TLS12Ticket == nil || !*res.TLS12Ticket) {
			// No hit rate to measure: the one under way is dropped.
			stopRate()
		}
	}
	wg.Wait()
	res.mergeRate(rate)
	if tls13 {
		if tls12Err != nil && ctx.Err() != nil {
			return res, tls12Err
		}
		return res, errors.Join(tls12Err, rateErr)
	}
	if tls12Err != nil && ctx.Err() != nil {
		return res, tls12Err
	}
	if !tls12 {
		return res, tls12Err
	}
	if res.TLS12Ticket == nil || !*res.TLS12Ticket {
		res.Version = tls.VersionName(VersionTLS12)
		res.Attempts, res.Resumed, res.FullHandshake, res.ResumedHandshake = 0, 0, 0, 0
		return res, tls12Err
	}
	return res, errors.Join(tls12Err, rateErr)
}

// mergeRate copies the hit rate's fields from rate.
func (r *Resumption) mergeRate(rate Resumption) {
	r.Version, r.Attempts, r.Resumed = rate.Version, rate.Attempts, rate.Resumed
	r.FullHandshake, r.ResumedHandshake = rate.FullHandshake, rate.ResumedHandshake
	r.TLS13PSK, r.TLS13TicketLifetime, r.MaxEarlyData = rate.TLS13PSK, rate.TLS13TicketLifetime, rate.MaxEarlyData
}

// resumeTLS12 checks resumption by ticket with crypto/tls, and by session
// ID with a hand-built ClientHello carrying the ID the server issued to a
// full handshake without tickets (crypto/tls never resumes by ID). The
// two run side by side.
func (t *target) resumeTLS12(ctx context.Context, res *Resumption) error {
	var wg sync.WaitGroup
	var idErr error
	wg.Go(func() { idErr = t.resumeTLS12SessionID(ctx, res) })
	err := t.resumeTLS12Ticket(ctx, res)
	wg.Wait()
	if err != nil {
		return err
	}
	return idErr
}

// resumeTLS12Ticket checks resumption by ticket with crypto/tls.
func (t *target) resumeTLS12Ticket(ctx context.Context, res *Resumption) error {
	cfg := t.config(tls.VersionTLS12)
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	s, err := t.dial(ctx, cfg, withRecording)
	if err != nil {
		return err
	}
	recs, _ := readServerRecords(s.rec.bytesRead(), s.conn.ConnectionState(), s.keys)
	s.conn.Close()
	res.TLS12Rounds = s.rounds
	res.TLS12TicketHint = recs.TicketLifetime
	s2, err := t.dial(ctx, cfg, noRecording)
	if err != nil {
		return err
	}
	res.TLS12Ticket = boolPtr(s2.conn.ConnectionState().DidResume)
	if *res.TLS12Ticket {
		res.TLS12ResumedRounds = s2.rounds
	}
	s2.conn.Close()
	return nil
}

// resumeTLS12SessionID checks resumption by session ID.
func (t *target) resumeTLS12SessionID(ctx context.Context, res *Resumption) error {
	cfg := t.config(tls.VersionTLS12)
	cfg.SessionTicketsDisabled = true
	s3, err := t.dial(ctx, cfg, withRecording)
	if err != nil {
		return err
	}
	suite := s3.conn.ConnectionState().CipherSuite
	s3.conn.Close()
	first, err := readReply(bytes.NewReader(s3.rec.bytesRead()), false)
	if err != nil || first.hello == nil || len(first.hello.sessionID) == 0 {
		res.TLS12SessionID = boolPtr(false)
		return nil
	}
	p := newProber(t.addr, t.host, 1, t.timeout, t.dialer)
	id := first.hello.sessionID
	r, err := p.send(ctx, clientHello{version: VersionTLS12, suites: []uint16{suite}, sessionID: id, noTicket: true}, false)
	if err != nil {
		return err
	}
	if notes := p.notesTaken(); len(notes) > 0 {
		return fmt.Errorf("TLS 1.2 resumption by session ID: %s", notes[0])
	}
	res.TLS12SessionID = boolPtr(r.hello != nil && bytes.Equal(r.hello.sessionID, id))
	return nil
}

// ResumesBySessionID reports whether the server at addr (host:port, the
// TLS server name serverName) resumes a TLS 1.2 session by the session
// ID it issued to a full handshake without tickets, as a client that
// takes no tickets resumes; crypto/tls never does, so a session cache
// (nginx's ssl_session_cache) shows only here. dial opens the TCP
// connections (nil: net.Dialer); each is bounded by timeout. A server
// without TLS 1.2 is an error.
func ResumesBySessionID(ctx context.Context, addr, serverName string, timeout time.Duration,
	dial func(ctx context.Context, network, addr string) (net.Conn, error)) (bool, error) {
	t := &target{addr: addr, host: serverName, timeout: timeout, dialer: newCountingDialer(1, timeout, dial)}
	var res Resumption
	if err := t.resumeTLS12SessionID(ctx, &res); err != nil {
		return false, err
	}
	return *res.TLS12SessionID, nil
}

// fullHandshakes is how many handshakes without a session are timed.
const fullHandshakes = 3

// Reconnections are measured in independent chains, run side by side:
// each chain is one full handshake with a request (TLS 1.3 tickets arrive
// after the handshake), then up to chainLength reconnections, each with a
// request as a browser would, each offering the session the connection
// before it left. The second reconnection of a chain offers a ticket
// issued on a resumed connection, so a server that issues single-use
// tickets, or none on resumption, is judged as a browser sees it.
// chainsInFlight bounds the chains run at once (each holds one connection).
const (
	chainLength    = 2
	chainsInFlight = 10
)

// hitRate times fullHandshakes full handshakes, then measures "resumed N
// of K": K = attempts reconnections, made in chains of chainLength (see
// above), up to chainsInFlight chains at a time. Resumed counts the
// reconnections the server resumed, over all chains.
func (t *target) hitRate(ctx context.Context, res *Resumption, version uint16, attempts int) (err error) {
	var mu sync.Mutex
	var full, resumed []time.Duration
	// Also when the audit is stopped part way: what was measured stands,
	// and resumptions seen prove PSK support (none seen proves nothing).
	defer func() {
		res.FullHandshake, res.ResumedHandshake = median(full), median(resumed)
		if version == VersionTLS13 && (err == nil || res.Resumed > 0) {
			res.TLS13PSK = boolPtr(res.Resumed > 0)
		}
	}()
	res.Version = tls.VersionName(version)
	chains := (attempts + chainLength - 1) / chainLength
	errs := make([]error, fullHandshakes+chains)
	var wg sync.WaitGroup
	for i := range fullHandshakes {
		wg.Go(func() {
			s, err := t.dial(ctx, t.config(version), noRecording)
			if err != nil {
				errs[i] = err
				return
			}
			s.conn.Close()
			mu.Lock()
			full = append(full, s.handshake)
			mu.Unlock()
		})
	}
	// request sends each connection of a chain its request: over TLS 1.3
	// the tickets come after the handshake, and the response waits for
	// them. A TLS 1.2 ticket comes within the handshake, so there the
	// request would add a round trip and nothing to the measure.
	request := func(s *session) {
		if version == VersionTLS13 {
			_, _, _ = t.get(ctx, s, t.path)
		} else {
			s.conn.Close()
		}
	}
	// chain runs chain c: its full handshake, then its reconnections.
	chain := func(c int) error {
		cfg := t.config(version)
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
		// The first chain's full handshake is recorded, for the ticket's
		// lifetime and early-data limit.
		rec := c == 0
		s, err := t.dial(ctx, cfg, rec)
		if err != nil {
			return err
		}
		request(s)
		if rec && version == VersionTLS13 {
			if recs, err := readServerRecords(s.rec.bytesRead(), s.conn.ConnectionState(), s.keys); err == nil {
				mu.Lock()
				res.TLS13TicketLifetime, res.MaxEarlyData = recs.TicketLifetime, recs.MaxEarlyData
				mu.Unlock()
			}
		}
		n := min(chainLength, attempts-c*chainLength)
		for range n {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s, err := t.dial(ctx, cfg, noRecording)
			if err != nil {
				return err
			}
			mu.Lock()
			res.Attempts++
			if s.conn.ConnectionState().DidResume {
				res.Resumed++
				resumed = append(resumed, s.handshake)
			}
			mu.Unlock()
			request(s)
		}
		return nil
	}
	next := make(chan int)
	for range min(chains, chainsInFlight) {
		wg.Go(func() {
			for c := range next {
				errs[fullHandshakes+c] = chain(c)
			}
		})
	}
feed:
	for c := range chains {
		select {
		case next <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return firstErr(errs)
}

// median is stats.Median of durations; 0 for none.
func median(d []time.Duration) Duration {
	if len(d) == 0 {
		return 0
	}
	xs := make([]float64, len(d))
	for i, x := range d {
		xs[i] = float64(x)
	}
	return Duration(stats.Median(xs))
}
