package tlsscan

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"time"
)

// olderHello is the ClientHello of the checks on TLS 1.2 and older
// handshakes: TLS 1.2 at most (so that a TLS 1.3 server answers with
// TLS 1.2), every suite of those versions.
func olderHello() clientHello {
	return clientHello{version: VersionTLS12, suites: candidateSuites(false)}
}

// handshake dials, sends h and reads the server's first flight. The
// caller closes the connection with done.
func (p *prober) handshake(ctx context.Context, h clientHello) (c *vulnConn, f flight, done func(), err error) {
	if h.serverName == "" {
		h.serverName = p.serverName
	}
	msg, err := h.marshal()
	if err != nil {
		return nil, f, nil, err
	}
	c, done, err = p.dialVuln(ctx)
	if err != nil {
		return nil, f, nil, err
	}
	if _, err := c.Write(msg); err != nil {
		done()
		return nil, f, nil, fmt.Errorf("sending the ClientHello: %w", err)
	}
	f, err = readFlight(c)
	if err != nil {
		done()
		return nil, f, nil, fmt.Errorf("reading the answer to the ClientHello: %w", err)
	}
	return c, f, done, nil
}

// notOlder is the outcome when the server does not complete a TLS 1.2 or
// older first flight: the attacks on those handshakes do not apply.
func notOlder(f flight) (VulnStatus, string, error) {
	return NotApplicable, "a TLS 1.2 ClientHello got " + f.describe() + ": no TLS 1.2 or older handshake to attack", nil
}

// heartbeatClaim is the payload length the Heartbleed request claims
// while carrying none.
const heartbeatClaim = 1 << 14

// checkHeartbleed offers the heartbeat extension; a server that accepts
// it gets a heartbeat request claiming 16384 bytes of payload and
// carrying none (CVE-2014-0160). A server without the flaw drops it (RFC
// 6520, 4); a vulnerable one answers with 16384 bytes of its memory.
func checkHeartbleed(ctx context.Context, p *prober) (VulnStatus, string, error) {
	h := olderHello()
	h.extraExts = []rawExtension{{typ: extHeartbeat, body: []byte{1}}} // peer_allowed_to_send
	c, f, done, err := p.handshake(ctx, h)
	if err != nil {
		return "", "", err
	}
	defer done()
	if !f.older() {
		return notOlder(f)
	}
	if _, ok := f.hello.exts[extHeartbeat]; !ok {
		return NotApplicable, "the " + versionName(f.hello.version) + " ServerHello has no heartbeat extension", nil
	}
	req := marshalRecord(recordHeartbeat, f.hello.version, []byte{1, heartbeatClaim >> 8, heartbeatClaim & 0xff})
	if _, err := c.Write(req); err != nil {
		return NotVulnerable, "the server closed the connection at the heartbeat request", nil
	}
	_ = c.SetReadDeadline(time.Now().Add(c.quiet()))
	for range 8 {
		rec, err := readVulnRecord(c)
		switch {
		case timedOut(err):
			return NotVulnerable, fmt.Sprintf("heartbeat accepted; a request claiming %d bytes and carrying none got no answer in %v", heartbeatClaim, c.quiet()), nil
		case err != nil:
			return NotVulnerable, "heartbeat accepted; a request claiming more bytes than it carries was answered by closing the connection", nil
		case rec.typ == recordAlert:
			a := parseAlert(rec.payload)
			return NotVulnerable, fmt.Sprintf("heartbeat accepted; a request claiming more bytes than it carries was answered by alert %d (%s)", a.Description, alertName(a.Description)), nil
		case rec.typ == recordHeartbeat && len(rec.payload) > 3:
			return Vulnerable, fmt.Sprintf("a heartbeat request claiming %d bytes of payload and carrying none was answered with a %d-byte heartbeat response: server memory",
				heartbeatClaim, len(rec.payload)), nil
		}
	}
	return NotVulnerable, "heartbeat accepted; the request was not answered", nil
}

// checkCCSInjection sends two ChangeCipherSpec messages right after the
// server's first flight, before any key exchange (CVE-2014-0224). A
// server without the flaw rejects the first with unexpected_message; a
// vulnerable one accepts it, switches to keys made from an empty master
// secret, and fails to decrypt the second: bad_record_mac or
// decryption_failed.
func checkCCSInjection(ctx context.Context, p *prober) (VulnStatus, string, error) {
	c, f, done, err := p.handshake(ctx, olderHello())
	if err != nil {
		return "", "", err
	}
	defer done()
	if !f.older() {
		return notOlder(f)
	}
	ccs := marshalRecord(recordChangeCipherSpec, f.hello.version, []byte{1})
	if _, err := c.Write(append(bytes.Clone(ccs), ccs...)); err != nil {
		return NotVulnerable, "the server closed the connection at the early ChangeCipherSpec", nil
	}
	_ = c.SetReadDeadline(time.Now().Add(c.quiet()))
	rec, err := readVulnRecord(c)
	switch {
	case timedOut(err):
		return NotVulnerable, fmt.Sprintf("two early ChangeCipherSpec messages got no answer in %v", c.quiet()), nil
	case err != nil:
		return NotVulnerable, "an early ChangeCipherSpec was answered by closing the connection", nil
	case rec.typ != recordAlert:
		return NotVulnerable, fmt.Sprintf("an early ChangeCipherSpec was answered by a record of type %d", rec.typ), nil
	}
	a := parseAlert(rec.payload)
	if a.Description == alertBadRecordMAC || a.Description == alertDecryptionFailed {
		return Vulnerable, fmt.Sprintf("the server accepted a ChangeCipherSpec before any key exchange: the second one was answered by alert %d (%s)",
			a.Description, alertName(a.Description)), nil
	}
	return NotVulnerable, fmt.Sprintf("an early ChangeCipherSpec was answered by alert %d (%s)", a.Description, alertName(a.Description)), nil
}

// checkRenegotiationInfo offers the renegotiation_info extension in a
// TLS 1.2 ClientHello: a server that implements secure renegotiation
// (RFC 5746) answers with it.
func checkRenegotiationInfo(ctx context.Context, p *prober) (VulnStatus, string, error) {
	_, f, done, err := p.handshake(ctx, olderHello())
	if err != nil {
		return "", "", err
	}
	defer done()
	if !f.older() {
		return notOlder(f)
	}
	name := versionName(f.hello.version)
	if _, ok := f.hello.exts[extRenegotiation]; ok {
		return NotVulnerable, "the " + name + " ServerHello has the renegotiation_info extension", nil
	}
	return Vulnerable, "the " + name + " ServerHello has no renegotiation_info extension although the ClientHello offered it", nil
}

// checkCompression offers DEFLATE compression before null (CRIME,
// CVE-2012-4929): a server that selects it compresses secrets and
// attacker-chosen text in one record.
func checkCompression(ctx context.Context, p *prober) (VulnStatus, string, error) {
	h := olderHello()
	h.compression = []uint8{1, 0} // DEFLATE, null
	_, f, done, err := p.handshake(ctx, h)
	if err != nil {
		return "", "", err
	}
	defer done()
	if !f.older() {
		return notOlder(f)
	}
	if m := f.hello.compression; m != 0 {
		return Vulnerable, fmt.Sprintf("a ClientHello offering DEFLATE and null compression got a ServerHello selecting compression method %d", m), nil
	}
	return NotVulnerable, "a ClientHello offering DEFLATE and null compression got a ServerHello selecting null", nil
}

// checkTicketbleed resumes a TLS 1.2 session by its ticket with a
// 16-byte session ID (CVE-2016-9244). The server must echo the ID as
// sent (RFC 5077, 3.4); a vulnerable one returns 32 bytes, the ID
// followed by 16 bytes of its memory.
func checkTicketbleed(ctx context.Context, p *prober) (VulnStatus, string, error) {
	ticket, version, err := p.tls12Ticket(ctx)
	if err != nil {
		return "", "", err
	}
	if ticket == nil {
		return NotApplicable, "no session ticket was issued in a TLS 1.2 or older handshake", nil
	}
	h := clientHello{version: version, suites: candidateSuites(false), ticket: ticket, sessionID: make([]byte, 16)}
	_, _ = rand.Read(h.sessionID)
	_, f, done, err := p.handshake(ctx, h)
	if err != nil {
		return "", "", err
	}
	defer done()
	switch {
	case f.hello == nil:
		return NotVulnerable, "the ClientHello with the ticket got " + f.describe(), nil
	case len(f.hello.sessionID) > len(h.sessionID) && bytes.HasPrefix(f.hello.sessionID, h.sessionID):
		return Vulnerable, fmt.Sprintf("a ClientHello with a session ticket and a %d-byte session ID got it back as %d bytes: %d bytes of server memory",
			len(h.sessionID), len(f.hello.sessionID), len(f.hello.sessionID)-len(h.sessionID)), nil
	case bytes.Equal(f.hello.sessionID, h.sessionID):
		return NotVulnerable, fmt.Sprintf("the ticket was accepted and the %d-byte session ID echoed as sent", len(h.sessionID)), nil
	}
	return NotVulnerable, fmt.Sprintf("the ticket was not used: a full handshake with a %d-byte session ID of the server's", len(f.hello.sessionID)), nil
}
