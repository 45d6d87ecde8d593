package tlsscan

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// The vulnerability checks speak the handshake by hand as far as each
// attack needs, on connections of their own; this file holds what they
// share: the connection, the reading of the server's first flight and
// the full ServerHello.

// recordHeartbeat is the heartbeat content type (RFC 6520).
const recordHeartbeat = 24

// Extension code points the checks add.
const (
	extHeartbeat = 15
)

// Alert descriptions the checks tell apart (RFC 5246, 7.2).
const (
	alertUnexpectedMessage   = 10
	alertBadRecordMAC        = 20
	alertDecryptionFailed    = 21
	alertHandshakeFailure    = 40
	alertProtocolVersion     = 70
	alertInappropriateFallbk = 86
)

// vulnConn is one connection of a vulnerability check.
type vulnConn struct {
	net.Conn
	// rtt is the TCP connect time, the check's estimate of a round trip.
	rtt time.Duration
}

// dialVuln opens a connection for one check once the dialer grants it a
// slot; the dialer's timeout bounds it from then, and the end of ctx ends
// it at once. A refused connection is tried again after a growing pause,
// at most maxRetries times, as the enumeration's are: the checks open
// some twenty connections at once.
func (p *prober) dialVuln(ctx context.Context) (*vulnConn, func(), error) {
	var c *slotConn
	var err error
	pause := 25 * time.Millisecond
	for attempt := 0; ; attempt++ {
		c, err = p.dialer.open(ctx, "tcp", p.addr)
		if err == nil || ctx.Err() != nil || attempt == maxRetries || !refused(dialError{err}) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(pause):
		}
		pause *= 2
	}
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", p.addr, err)
	}
	p.noteRTT(c.connect)
	deadline := c.deadline
	if deadline.IsZero() {
		deadline = time.Now().Add(p.timeout)
	}
	_ = c.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	return &vulnConn{Conn: c, rtt: c.connect}, func() { stop(); c.Close() }, nil
}

// quiet is how long a check waits for an answer a server that is not
// vulnerable never sends: a few round trips, and at least 250 ms, so
// that a busy server's late answer is still seen.
func (c *vulnConn) quiet() time.Duration { return max(4*c.rtt, 250*time.Millisecond) }

// helloFacts is a ServerHello with every field the checks read.
type helloFacts struct {
	version     uint16 // negotiated: supported_versions if present
	sessionID   []byte
	suite       uint16
	compression uint8
	exts        map[uint16][]byte
}

// parseHelloFacts parses the body of a ServerHello.
func parseHelloFacts(body []byte) (helloFacts, error) {
	h := helloFacts{exts: map[uint16][]byte{}}
	s := cryptobyte.String(body)
	var random, sid []byte
	if !s.ReadUint16(&h.version) || !s.ReadBytes(&random, 32) ||
		!s.ReadUint8LengthPrefixed((*cryptobyte.String)(&sid)) || !s.ReadUint16(&h.suite) || !s.ReadUint8(&h.compression) {
		return h, errors.New("parsing ServerHello: truncated")
	}
	h.sessionID = append([]byte(nil), sid...)
	if s.Empty() {
		return h, nil
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return h, errors.New("parsing ServerHello: bad extensions")
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return h, errors.New("parsing ServerHello: bad extension")
		}
		h.exts[typ] = append([]byte(nil), data...)
	}
	if v, ok := h.exts[extSupportedVersion]; ok && len(v) == 2 {
		h.version = uint16(v[0])<<8 | uint16(v[1])
	}
	return h, nil
}

// flight is what a server sent in answer to a ClientHello, up to the end
// of its first flight.
type flight struct {
	hello  *helloFacts
	alert  *Alert
	ccs    bool   // a ChangeCipherSpec (an abbreviated handshake) ended it
	closed bool   // the server closed the connection before the flight's end
	leaf   []byte // the first certificate of the Certificate message, DER
}

// readFlight reads the server's answer to a ClientHello until the
// ServerHelloDone, a ChangeCipherSpec, an alert, a TLS 1.3 ServerHello
// or the end of the connection; at most 64 records.
func readFlight(r io.Reader) (flight, error) {
	var out flight
	var hs handshakeReader
	for range 64 {
		rec, err := readVulnRecord(r)
		if closedByPeer(err) {
			out.closed = true
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch rec.typ {
		case recordAlert:
			out.alert = parseAlert(rec.payload)
			return out, nil
		case recordChangeCipherSpec:
			out.ccs = true
			return out, nil
		case recordHandshake:
			hs.buf = append(hs.buf, rec.payload...)
		default:
			return out, fmt.Errorf("reading the server's first flight: unexpected record type %d", rec.typ)
		}
		if done, err := out.consume(&hs); done || err != nil {
			return out, err
		}
	}
	return out, errors.New("reading the server's first flight: too many records")
}

func (out *flight) consume(hs *handshakeReader) (done bool, err error) {
	for {
		typ, body, ok := hs.next()
		if !ok {
			return false, nil
		}
		if out.hello == nil {
			if typ != msgServerHello {
				return true, fmt.Errorf("reading ServerHello: got handshake message %d first", typ)
			}
			h, err := parseHelloFacts(body)
			if err != nil {
				return true, err
			}
			out.hello = &h
			if h.version >= VersionTLS13 {
				return true, nil
			}
			continue
		}
		switch typ {
		case msgServerHelloDone:
			return true, nil
		case msgCertificate:
			out.leaf = firstCertificate(body)
		}
	}
}

// older reports whether the flight is a complete TLS 1.2 (or older)
// first flight, which the checks on such handshakes need.
func (f flight) older() bool {
	return f.hello != nil && f.hello.version < VersionTLS13 && !f.closed && f.alert == nil
}

// describe says in a few words what the server answered.
func (f flight) describe() string {
	switch {
	case f.alert != nil:
		return fmt.Sprintf("alert %d (%s)", f.alert.Description, alertName(f.alert.Description))
	case f.hello != nil && f.hello.version >= VersionTLS13:
		return "a TLS 1.3 ServerHello"
	case f.hello != nil:
		return "a " + versionName(f.hello.version) + " ServerHello"
	case f.closed:
		return "the connection closed"
	}
	return "nothing"
}

// readVulnRecord reads one record, heartbeat records included, and
// refuses lengths no TLS peer may send.
func readVulnRecord(r io.Reader) (record, error) { return readRecordUpTo(r, recordHeartbeat) }

// closedByPeer reports a connection the server closed or reset.
func closedByPeer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// timedOut reports a read that reached its deadline.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func parseAlert(b []byte) *Alert {
	if len(b) < 2 {
		return &Alert{}
	}
	return &Alert{Level: b[0], Description: b[1]}
}

// marshalRecord frames payload as one record of type typ.
func marshalRecord(typ uint8, version uint16, payload []byte) []byte {
	out := []byte{typ, byte(version >> 8), byte(version), byte(len(payload) >> 8), byte(len(payload))}
	return append(out, payload...)
}

// alertNames are the alerts the checks meet (RFC 5246, 7.2; RFC 7507).
var alertNames = map[uint8]string{0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 21: "decryption_failed",
	22: "record_overflow", 40: "handshake_failure", 47: "illegal_parameter", 50: "decode_error", 51: "decrypt_error",
	70: "protocol_version", 71: "insufficient_security", 80: "internal_error", 86: "inappropriate_fallback",
	100: "no_renegotiation", 109: "missing_extension", 110: "unsupported_extension"}

func alertName(d uint8) string {
	if n, ok := alertNames[d]; ok {
		return n
	}
	return "unknown"
}

// versionName names a version as on the wire, SSLv2 included.
func versionName(v uint16) string {
	if v == versionSSL20 {
		return "SSLv2"
	}
	return tls.VersionName(v)
}

// firstCertificate returns the first certificate of a TLS 1.2
// Certificate message body, or nil.
func firstCertificate(body []byte) []byte {
	s := cryptobyte.String(body)
	var list, der cryptobyte.String
	if !s.ReadUint24LengthPrefixed(&list) || !list.ReadUint24LengthPrefixed(&der) {
		return nil
	}
	return append([]byte(nil), der...)
}
