package tlsscan

import (
	"context"
	"crypto/ecdh"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Client-initiated renegotiation (CVE-2011-1473): a server that makes a
// new full handshake whenever the client asks spends a private-key
// operation per request of an attacker, on one connection. The check
// completes a TLS 1.2 handshake written out by hand (it must: crypto/tls
// never renegotiates as a client), then sends a ClientHello inside it.
// It speaks the AEAD suites of TLS 1.2 (AES-GCM and ChaCha20-Poly1305),
// which every server that follows Mozilla's profiles accepts, and, for
// the servers that offer no AEAD suite, the CBC suites with HMAC-SHA1,
// SHA-256 or SHA-384 (AES and 3DES), each with ECDHE (on any of four
// curves), DHE (an RSA certificate) or RSA key exchange: a server that
// holds TLS 1.2 to DHE suites or to one curve is measured too, not taken
// for one without TLS 1.2.

const idClientRenegotiation = "client-renegotiation"

// fullFlight is a TLS 1.2 server's first flight with its messages kept.
type fullFlight struct {
	flight
	random     []byte
	messages   []byte // every handshake message, for the transcript
	serverKey  []byte // the public key of ServerKeyExchange, ECDHE or DHE
	curve      ecdh.Curve
	dh         *dhGroup // the DHE group of ServerKeyExchange
	emsAgreed  bool
	riAgreed   bool
	clientRand []byte
}

// readFullFlight reads the first flight up to ServerHelloDone, keeping
// the messages; at most 64 records.
func readFullFlight(r io.Reader) (fullFlight, error) {
	var out fullFlight
	var hs handshakeReader
	for range 64 {
		rec, err := readVulnRecord(r)
		if err != nil {
			return out, err
		}
		if rec.typ == recordAlert {
			out.alert = parseAlert(rec.payload)
			return out, nil
		}
		if rec.typ != recordHandshake {
			return out, fmt.Errorf("reading the first flight: record type %d", rec.typ)
		}
		hs.buf = append(hs.buf, rec.payload...)
		for {
			typ, body, ok := hs.next()
			if !ok {
				break
			}
			out.messages = append(out.messages, typ, byte(len(body)>>16), byte(len(body)>>8), byte(len(body)))
			out.messages = append(out.messages, body...)
			if done, err := out.read(typ, body); done || err != nil {
				return out, err
			}
		}
	}
	return out, errors.New("reading the first flight: too many records")
}

func (out *fullFlight) read(typ uint8, body []byte) (done bool, err error) {
	switch typ {
	case msgServerHello:
		h, err := parseHelloFacts(body)
		if err != nil {
			return true, err
		}
		out.hello, out.random = &h, body[2:34]
		_, out.emsAgreed = h.exts[extExtendedMaster]
		_, out.riAgreed = h.exts[extRenegotiation]
		return h.version != VersionTLS12, nil
	case msgCertificate:
		out.leaf = firstCertificate(body)
	case msgServerKeyExchange:
		if out.hello != nil && slices.Contains(renegDHE, out.hello.suite) {
			err := out.readDHParams(body)
			return err != nil, err
		}
		err := out.readECDHParams(body)
		return err != nil, err
	case msgServerHelloDone:
		return true, nil
	}
	return false, nil
}

// checkClientRenegotiation completes a TLS 1.2 handshake and asks for a
// new one with a ClientHello inside it: a ServerHello in answer is a
// renegotiation the client started.
func checkClientRenegotiation(ctx context.Context, p *prober) (VulnStatus, string, error) {
	h := clientHello{version: VersionTLS12, suites: renegOffer, groups: renegGroupOrder, serverName: p.serverName, noTicket: true}
	msg, err := h.marshal()
	if err != nil {
		return "", "", err
	}
	c, done, err := p.dialVuln(ctx)
	if err != nil {
		return "", "", err
	}
	defer done()
	if _, err := c.Write(msg); err != nil {
		return "", "", fmt.Errorf("sending the ClientHello: %w", err)
	}
	f, err := readFullFlight(c)
	switch {
	case err != nil && closedByPeer(err):
		return NotApplicable, "a TLS 1.2 ClientHello was answered by closing the connection: no TLS 1.2", nil
	case err != nil:
		return "", "", err
	case f.alert != nil || f.hello == nil || f.hello.version != VersionTLS12:
		return NotApplicable, "a TLS 1.2 ClientHello got " + f.describe() + ": no TLS 1.2 handshake to renegotiate", nil
	case renegSuites[f.hello.suite].hash == nil:
		return NotMeasured, "the server chose " + SuiteName(f.hello.suite) + ", a suite the check does not speak", nil
	}
	f.clientRand = msg[11:43]
	status, seen, err := renegotiate(c, f, msg[5:])
	return status, SuiteName(f.hello.suite) + ": " + seen, err
}

// renegotiationUnspoken turns the client-renegotiation check's "no TLS 1.2
// handshake" into not measured when the enumeration found TLS 1.2 all the
// same: the server holds it to what the check does not speak (Camellia,
// ARIA or CCM suites, DSS certificates), and whether it renegotiates when
// asked is unknown.
func renegotiationUnspoken(c VulnCheck, e *Enumeration) VulnCheck {
	v := e.Version(VersionTLS12)
	if c.ID != idClientRenegotiation || c.Status != NotApplicable || v == nil || !v.Supported {
		return c
	}
	answer, _, _ := strings.Cut(c.Seen, ": no TLS 1.2")
	c.Status, c.Seen = NotMeasured, fmt.Sprintf("the enumeration found TLS 1.2 (%s), yet %s", suiteNames(v.Suites), answer)
	if !slices.ContainsFunc(v.Suites, func(s Suite) bool { _, ok := renegSuites[s.ID]; return ok }) {
		c.Seen = fmt.Sprintf("TLS 1.2 is spoken only with suites the check does not speak (%s): %s", suiteNames(v.Suites), answer)
	}
	return c
}

// renegotiate finishes the handshake of f and sends a new ClientHello.
func renegotiate(c *vulnConn, f fullFlight, hello []byte) (VulnStatus, string, error) {
	cke, pre, err := f.clientKeyExchange()
	if err != nil {
		return "", "", err
	}
	transcript := slices.Concat(hello, f.messages, cke)
	suite := renegSuites[f.hello.suite]
	var master []byte
	if f.emsAgreed {
		master = prf12(suite.hash, pre, "extended master secret", digest(suite.hash, transcript), 48)
	} else {
		master = prf12(suite.hash, pre, "master secret", slices.Concat(f.clientRand, f.random), 48)
	}
	kb := prf12(suite.hash, master, "key expansion", slices.Concat(f.random, f.clientRand), suite.keyBlockLen())
	out, in, err := suite.protections(kb)
	if err != nil {
		return "", "", err
	}
	verify := prf12(suite.hash, master, "client finished", digest(suite.hash, transcript), 12)
	finished := append([]byte{msgFinished, 0, 0, 12}, verify...)
	flight := slices.Concat(marshalRecord(recordHandshake, VersionTLS12, cke), marshalRecord(recordChangeCipherSpec, VersionTLS12, []byte{1}),
		out.seal(recordHandshake, finished))
	if _, err := c.Write(flight); err != nil {
		return "", "", fmt.Errorf("sending the client's Finished: %w", err)
	}
	if err := readServerFinished(c, in); err != nil {
		return "", "", fmt.Errorf("completing the TLS 1.2 handshake: %w", err)
	}
	again := clientHello{version: VersionTLS12, suites: renegOffer, groups: renegGroupOrder, noTicket: true}
	if f.riAgreed {
		again.renegotiationInfo = verify // RFC 5746, 3.5: the client's verify_data
	}
	rec, err := again.marshal()
	if err != nil {
		return "", "", err
	}
	if _, err := c.Write(out.seal(recordHandshake, rec[5:])); err != nil {
		return NotVulnerable, "after a complete TLS 1.2 handshake, the server closed the connection at a new ClientHello", nil
	}
	return readRenegotiationAnswer(c, in)
}

// readServerFinished reads the server's ChangeCipherSpec and Finished.
func readServerFinished(c *vulnConn, in recordProtection) error {
	ccs := false
	for range 8 {
		rec, err := readVulnRecord(c)
		if err != nil {
			return err
		}
		switch {
		case rec.typ == recordChangeCipherSpec:
			ccs = true
		case !ccs && rec.typ == recordHandshake:
			continue // a NewSessionTicket, in the clear
		case rec.typ == recordAlert:
			a := parseAlert(rec.payload)
			return fmt.Errorf("alert %d (%s) at the client's Finished", a.Description, alertName(a.Description))
		case rec.typ == recordHandshake:
			plain, err := in.open(rec)
			if err != nil {
				return fmt.Errorf("decrypting the server's Finished: %w", err)
			}
			if len(plain) > 0 && plain[0] == msgFinished {
				return nil
			}
		}
	}
	return errors.New("no Finished from the server")
}

// readRenegotiationAnswer reads the answer to the ClientHello sent inside
// the session.
func readRenegotiationAnswer(c *vulnConn, in recordProtection) (VulnStatus, string, error) {
	const asked = "after a complete TLS 1.2 handshake, a ClientHello asking for a new one"
	_ = c.SetReadDeadline(time.Now().Add(c.quiet()))
	for range 4 {
		rec, err := readVulnRecord(c)
		switch {
		case timedOut(err):
			return NotVulnerable, fmt.Sprintf("%s got no answer in %v", asked, c.quiet()), nil
		case err != nil:
			return NotVulnerable, asked + " was answered by closing the connection", nil
		}
		plain, err := in.open(rec)
		if err != nil {
			return NotVulnerable, fmt.Sprintf("%s got a record of type %d that does not decrypt", asked, rec.typ), nil
		}
		switch {
		case rec.typ == recordAlert && len(plain) == 2:
			return NotVulnerable, fmt.Sprintf("%s got alert %d (%s)", asked, plain[1], alertName(plain[1])), nil
		case rec.typ == recordHandshake && len(plain) > 0 && plain[0] == msgServerHello:
			return Vulnerable, asked + " got a ServerHello: the server renegotiates when a client asks", nil
		}
	}
	return NotVulnerable, asked + " got neither a ServerHello nor an alert", nil
}
