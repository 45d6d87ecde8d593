package tlsscan

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
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
// supports; attempts is K of "resumed N of K".
func checkResumption(ctx context.Context, t *target, versions []uint16, attempts int) (Resumption, error) {
	var res Resumption
	var tls12Err error
	if slices.Contains(versions, VersionTLS12) {
		// A TLS 1.2 that Go cannot speak (suites it does not implement)
		// leaves the TLS 1.3 checks to run.
		if tls12Err = t.resumeTLS12(ctx, &res); tls12Err != nil {
			if ctx.Err() != nil {
				return res, tls12Err
			}
			tls12Err = fmt.Errorf("TLS 1.2: %w", tls12Err)
		}
	}
	top := VersionTLS12
	if slices.Contains(versions, VersionTLS13) {
		top = VersionTLS13
	}
	if !slices.Contains(versions, top) {
		return res, tls12Err
	}
	if top == VersionTLS12 && (res.TLS12Ticket == nil || !*res.TLS12Ticket) {
		// crypto/tls resumes TLS 1.2 by ticket only: no hit rate to measure.
		res.Version = tls.VersionName(top)
		return res, tls12Err
	}
	return res, errors.Join(tls12Err, t.hitRate(ctx, &res, top, attempts))
}

// resumeTLS12 checks resumption by ticket with crypto/tls, and by session
// ID with a hand-built ClientHello carrying the ID the server issued to a
// full handshake without tickets (crypto/tls never resumes by ID).
func (t *target) resumeTLS12(ctx context.Context, res *Resumption) error {
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

	cfg = t.config(tls.VersionTLS12)
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

// fullHandshakes is how many handshakes without a session are timed.
const fullHandshakes = 3

// hitRate primes a session with one full handshake and a request (TLS 1.3
// tickets arrive after the handshake), then reconnects attempts times,
// each time with a request as a browser would, so that servers issuing
// single-use tickets are judged fairly.
func (t *target) hitRate(ctx context.Context, res *Resumption, version uint16, attempts int) (err error) {
	var full, resumed []time.Duration
	// Also when the audit is stopped part way: what was measured stands,
	// and resumptions seen prove PSK support (none seen proves nothing).
	defer func() {
		res.FullHandshake, res.ResumedHandshake = median(full), median(resumed)
		if version == VersionTLS13 && (err == nil || res.Resumed > 0) {
			res.TLS13PSK = boolPtr(res.Resumed > 0)
		}
	}()
	for range fullHandshakes {
		s, err := t.dial(ctx, t.config(version), noRecording)
		if err != nil {
			return err
		}
		full = append(full, s.handshake)
		s.conn.Close()
	}
	cfg := t.config(version)
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	s, err := t.dial(ctx, cfg, withRecording)
	if err != nil {
		return err
	}
	_, _, _ = t.get(ctx, s, t.path)
	cs := s.conn.ConnectionState()
	if recs, err := readServerRecords(s.rec.bytesRead(), cs, s.keys); err == nil && version == VersionTLS13 {
		res.TLS13TicketLifetime, res.MaxEarlyData = recs.TicketLifetime, recs.MaxEarlyData
	}
	res.Version = tls.VersionName(version)
	for range attempts {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		s, err := t.dial(ctx, cfg, noRecording)
		if err != nil {
			return err
		}
		res.Attempts++
		if s.conn.ConnectionState().DidResume {
			res.Resumed++
			resumed = append(resumed, s.handshake)
		}
		_, _, _ = t.get(ctx, s, t.path)
	}
	return nil
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
