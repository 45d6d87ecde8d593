package tlsscan

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// The checks on protocol versions: SSLv2 (DROWN), SSLv3 with CBC
// (POODLE), and the downgrade protection of TLS_FALLBACK_SCSV.

// versionSSL20 is SSLv2's version number.
const versionSSL20 = 0x0002

// sslv2Ciphers are the seven SSLv2 cipher kinds (SSLv2 draft, appendix A).
var sslv2Ciphers = []uint32{0x010080, 0x020080, 0x030080, 0x040080, 0x050080, 0x060040, 0x0700c0}

// sslv2ClientHello returns an SSLv2 CLIENT-HELLO offering every cipher kind.
func sslv2ClientHello() []byte {
	challenge := make([]byte, 16)
	_, _ = rand.Read(challenge)
	body := []byte{1, 0, versionSSL20, 0, byte(3 * len(sslv2Ciphers)), 0, 0, 0, byte(len(challenge))}
	for _, c := range sslv2Ciphers {
		body = append(body, byte(c>>16), byte(c>>8), byte(c))
	}
	body = append(body, challenge...)
	return append([]byte{0x80 | byte(len(body)>>8), byte(len(body))}, body...)
}

// checkSSLv2 sends an SSLv2 CLIENT-HELLO (DROWN, CVE-2016-0800): a server
// that answers with an SSLv2 SERVER-HELLO speaks SSLv2, and its RSA key
// can be used to decrypt TLS sessions that use the same key.
func checkSSLv2(ctx context.Context, p *prober) (VulnStatus, string, error) {
	c, done, err := p.dialVuln(ctx)
	if err != nil {
		return "", "", err
	}
	defer done()
	if _, err := c.Write(sslv2ClientHello()); err != nil {
		return NotVulnerable, "the server closed the connection at the SSLv2 CLIENT-HELLO", nil
	}
	// An SSLv2 server answers at once; a TLS server that waits for the
	// rest of what it takes for a record header has no SSLv2 to answer
	// with, and is not waited for until the check's deadline.
	wait := max(8*c.rtt, time.Second)
	_ = c.SetReadDeadline(time.Now().Add(wait))
	var hdr [2]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		if timedOut(err) {
			return NotVulnerable, fmt.Sprintf("an SSLv2 CLIENT-HELLO got no answer in %v", wait), nil
		}
		return NotVulnerable, "an SSLv2 CLIENT-HELLO was answered by closing the connection", nil
	}
	if hdr[0]&0x80 == 0 {
		return NotVulnerable, fmt.Sprintf("an SSLv2 CLIENT-HELLO was answered by a TLS record of type %d", hdr[0]), nil
	}
	body := make([]byte, int(hdr[0]&0x7f)<<8|int(hdr[1]))
	if _, err := io.ReadFull(c, body); err != nil {
		return "", "", fmt.Errorf("reading the SSLv2 SERVER-HELLO: %w", err)
	}
	// SERVER-HELLO: type 4, session-id-hit, certificate type, version,
	// certificate length, cipher specs length, connection-id length.
	if len(body) < 11 || body[0] != 4 {
		return NotVulnerable, "an SSLv2 CLIENT-HELLO was answered by an SSLv2 message that is not a SERVER-HELLO", nil
	}
	ciphers := (int(body[7])<<8 | int(body[8])) / 3
	return Vulnerable, fmt.Sprintf("an SSLv2 CLIENT-HELLO was answered by an SSLv2 SERVER-HELLO (version 0x%02x%02x) offering %d cipher kinds",
		body[3], body[4], ciphers), nil
}

// poodle reads SSLv3 with CBC suites (CVE-2014-3566) from the enumeration.
func poodle(e *Enumeration) VulnCheck {
	out := VulnCheck{ID: idSSLv3, Status: NotVulnerable, Seen: "an SSLv3 ClientHello was refused"}
	v := e.Version(VersionSSL30)
	if v == nil || !v.Supported {
		return out
	}
	var cbc []Suite
	for _, s := range v.Suites {
		if traitsOf(s.ID).CBC {
			cbc = append(cbc, s)
		}
	}
	if len(cbc) == 0 {
		out.Seen = "SSLv3 is accepted, with no CBC suite: " + suiteNames(v.Suites)
		return out
	}
	out.Status, out.Seen = Vulnerable, "SSLv3 is accepted with CBC suites: "+suiteNames(cbc)
	return out
}

// fallbackVersions are the versions a fallback ClientHello is sent at.
var fallbackVersions = []uint16{VersionTLS12, VersionTLS11, VersionTLS10}

// fallbackSCSV is TLS_FALLBACK_SCSV (RFC 7507).
const fallbackSCSV = 0x5600

// fallbackReplies are the answers to a ClientHello with
// TLS_FALLBACK_SCSV at each of fallbackVersions.
type fallbackReplies struct {
	answers []string // what each got, by fallbackVersions' index
	hello   []uint16 // the version of the ServerHello it got, or 0
	alert   []int    // the alert it got, or -1
	err     error
}

// probeFallback sends a ClientHello with TLS_FALLBACK_SCSV at TLS 1.2,
// 1.1 and 1.0, in parallel; which answer matters depends on the newest
// version the server accepts, known after the enumeration.
func probeFallback(ctx context.Context, p *prober) fallbackReplies {
	n := len(fallbackVersions)
	r := fallbackReplies{answers: make([]string, n), hello: make([]uint16, n), alert: make([]int, n)}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, v := range fallbackVersions {
		wg.Go(func() {
			h := clientHello{version: v, suites: append(candidateSuites(false), fallbackSCSV)}
			_, f, done, err := p.handshake(ctx, h)
			if err != nil {
				errs[i] = err
				return
			}
			done()
			r.answers[i], r.alert[i] = f.describe(), -1
			if f.alert != nil {
				r.alert[i] = int(f.alert.Description)
			}
			if f.hello != nil {
				r.hello[i] = f.hello.version
			}
		})
	}
	wg.Wait()
	r.err = firstErr(errs)
	return r
}

// verdict decides the fallback check: a ClientHello with the SCSV at the
// newest accepted version below the server's newest must get the alert
// inappropriate_fallback (RFC 7507, 3).
func (r fallbackReplies) verdict(e *Enumeration) VulnCheck {
	out := VulnCheck{ID: idFallbackSCSV}
	supported := e.Supported()
	if len(supported) == 0 {
		out.Status, out.Seen = NotApplicable, "no version accepted"
		return out
	}
	newest := supported[len(supported)-1]
	i := slices.IndexFunc(fallbackVersions, func(v uint16) bool { return v < newest && slices.Contains(supported, v) })
	if i < 0 {
		out.Status, out.Seen = NotApplicable, "no version below "+tls.VersionName(newest)+" is accepted: there is nothing to fall back to"
		return out
	}
	v := fallbackVersions[i]
	if r.err != nil || r.answers[i] == "" {
		out.Status, out.Seen = NotMeasured, fmt.Sprintf("the %s ClientHello with TLS_FALLBACK_SCSV got no answer: %v", tls.VersionName(v), r.err)
		return out
	}
	what := fmt.Sprintf("a %s ClientHello with TLS_FALLBACK_SCSV (the server accepts %s) got %s", tls.VersionName(v), tls.VersionName(newest), r.answers[i])
	switch {
	case r.alert[i] == alertInappropriateFallbk:
		out.Status = NotVulnerable
	case r.hello[i] != 0:
		out.Status = Vulnerable
		what += ": a downgraded handshake goes on"
	default:
		out.Status = NotVulnerable
		what += ", not inappropriate_fallback, but the downgraded handshake does not go on"
	}
	out.Seen = strings.TrimSpace(what)
	return out
}

// ticketCatcher is a client session cache that keeps the last session.
type ticketCatcher struct {
	mu    sync.Mutex
	state *tls.ClientSessionState
}

func (c *ticketCatcher) Get(string) (*tls.ClientSessionState, bool) { return nil, false }

func (c *ticketCatcher) Put(_ string, cs *tls.ClientSessionState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state = cs
}

// tls12Ticket makes a full handshake of TLS 1.2 or older with crypto/tls
// and returns the session ticket the server issued and the version; nil
// when it issued none or the handshake failed.
func (p *prober) tls12Ticket(ctx context.Context) ([]byte, uint16, error) {
	c, done, err := p.dialVuln(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	cache := &ticketCatcher{}
	// Verification is the chain check's job; this handshake only reads
	// the ticket.
	tc := tls.Client(c, &tls.Config{ServerName: p.serverName, InsecureSkipVerify: true, MinVersion: tls.VersionTLS10,
		MaxVersion: tls.VersionTLS12, CipherSuites: olderGoSuites(), ClientSessionCache: cache})
	if err := tc.HandshakeContext(ctx); err != nil {
		if ctx.Err() != nil || timedOut(err) {
			return nil, 0, fmt.Errorf("a TLS 1.2 handshake for a session ticket: %w", err)
		}
		return nil, 0, nil // no TLS 1.2 or older: nothing to resume
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.state == nil {
		return nil, 0, nil
	}
	ticket, _, err := cache.state.ResumptionState()
	if err != nil || len(ticket) == 0 {
		return nil, 0, nil
	}
	return ticket, tc.ConnectionState().Version, nil
}
