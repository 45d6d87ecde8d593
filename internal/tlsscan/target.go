package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// target is the server under audit as the behaviour checks dial it.
type target struct {
	addr    string // host:port
	host    string // host name or IP address, for SNI and verification
	path    string // the path the HTTP checks request
	roots   *x509.CertPool
	timeout time.Duration
	dialer  *countingDialer
	// maxHeader bounds the header of each response (bytes).
	maxHeader int64
	// shift moves the client's clock (tls.Config.Time) for the resumption
	// checks: crypto/tls drops a cached session whose leaf has expired by
	// its clock, even when it skips verification, so a server with an
	// expired certificate is measured as a client that accepted it sees it.
	shift time.Duration
	// group, if set, is the only key-exchange group a TLS 1.3 client
	// offers: the one the server chose for the first handshake, where Go's
	// default key shares made it ask for another (a HelloRetryRequest, a
	// round trip each time). The resumption checks offer it, as a client
	// that learned it.
	group tls.CurveID
}

// config returns a fresh client config. Verification is done by the
// chain check itself (so that an untrusted chain becomes a finding with
// -k instead of a failed handshake), hence the skip here.
//
// It offers every suite Go implements, the insecure ones too, so that a
// server that accepts only those (TLS_RSA_WITH_AES_128_CBC_SHA256, 3DES)
// can be audited: Go ignores the order of the list and prefers its secure
// suites, so a server that accepts those still negotiates one of them.
func (t *target) config(maxVersion uint16) *tls.Config {
	var clock func() time.Time
	if shift := t.shift; shift != 0 {
		clock = func() time.Time { return time.Now().Add(shift) }
	}
	cfg := &tls.Config{
		Time:               clock,
		ServerName:         t.host,
		InsecureSkipVerify: true,
		MinVersion:         tls.VersionTLS10,
		MaxVersion:         maxVersion,
		NextProtos:         []string{"http/1.1"},
		CipherSuites:       olderGoSuites(),
	}
	if t.group != 0 && maxVersion == tls.VersionTLS13 {
		// Not below: a TLS 1.2 server takes the groups offered for the
		// curves of ECDSA certificates it may present too.
		cfg.CurvePreferences = []tls.CurveID{t.group}
	}
	return cfg
}

// olderGoSuites lists every TLS 1.0 to 1.2 suite Go implements, built once.
var olderGoSuites = sync.OnceValue(func() []uint16 { return goSuites(false) })

// session is one TLS connection, with what the server sent recorded when
// the dial asked for it.
type session struct {
	conn      *tls.Conn
	rec       *recordingConn // nil when not recorded
	keys      *keyLog
	handshake time.Duration // from the ClientHello to the handshake's end
	// rounds is the round trips the handshake took, counted on the wire:
	// each time the client waited for the server after sending.
	rounds int
}

// turnConn counts the turns of a conversation: a read that follows a
// write is the client waiting for the server's answer, one round trip.
type turnConn struct {
	net.Conn
	mu      sync.Mutex
	wrote   bool
	waits   int
	counted bool // stop counting after the handshake
}

func (c *turnConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.wrote = true
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *turnConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if c.wrote && !c.counted {
		c.waits++
	}
	c.wrote = false
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// stop ends the count and returns it.
func (c *turnConn) stop() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counted = true
	return c.waits
}

// Whether a dial records what the server sends (see recordingConn).
const (
	noRecording   = false
	withRecording = true
)

// dial connects and completes a TLS handshake with cfg (cloned); with
// rec, it records what the server sends, for readServerRecords.
//
// The dialer waits for a slot first: the timeout starts when it is granted.
func (t *target) dial(ctx context.Context, cfg *tls.Config, rec bool) (*session, error) {
	c, err := t.dialer.open(ctx, "tcp", t.addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", t.addr, err)
	}
	ctx, cancel := c.within(ctx, t.timeout)
	defer cancel()
	var raw net.Conn = c
	s := &session{keys: &keyLog{}}
	cfg = cfg.Clone()
	turns := &turnConn{Conn: raw}
	raw = turns
	if rec {
		s.rec = &recordingConn{Conn: raw, limit: maxRecorded}
		raw = s.rec
		cfg.KeyLogWriter = s.keys
	}
	s.conn = tls.Client(raw, cfg)
	start := time.Now()
	if err := s.conn.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", t.addr, err)
	}
	s.handshake = time.Since(start)
	s.rounds = turns.stop()
	return s, nil
}

// maxBody bounds the response bytes read by one check.
const maxBody = 8 << 20

// get sends one HTTP/1.1 GET on the session and reads the whole response
// (at most maxBody bytes). The connection is closed afterwards.
func (t *target) get(ctx context.Context, s *session, path string) (*http.Response, []byte, error) {
	defer s.conn.Close()
	deadline, ok := ctx.Deadline()
	if !ok || time.Until(deadline) > t.timeout {
		deadline = time.Now().Add(t.timeout)
	}
	_ = s.conn.SetDeadline(deadline)
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: httpslab-audit\r\nAccept: */*\r\n"+
		"Accept-Encoding: gzip, br\r\nConnection: close\r\n\r\n", path, t.hostHeader())
	if _, err := io.WriteString(s.conn, req); err != nil {
		return nil, nil, fmt.Errorf("sending GET %s: %w", path, err)
	}
	resp, err := readFinal(transport.NewHeaderReader(s.conn, t.maxHeader))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the response to GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	start := time.Now()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = &transport.SlowError{What: "body", Read: int64(len(body)), Took: time.Since(start), Err: err}
	}
	if err != nil {
		return resp, body, fmt.Errorf("reading the body of GET %s: %w", path, err)
	}
	return resp, body, nil
}

// readFinal reads the final response, skipping up to
// transport.MaxInformational 1xx responses before it (audit reports the
// page's status, not a 102 Processing).
func readFinal(hr *transport.HeaderReader) (*http.Response, error) {
	for range transport.MaxInformational + 1 {
		resp, err := hr.ReadResponse(nil)
		if err != nil || resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, err
		}
	}
	return nil, fmt.Errorf("%w: more than %d without a final response", transport.ErrInformational, transport.MaxInformational)
}

// hostHeader is the Host header value: the host, with the port unless 443.
func (t *target) hostHeader() string {
	_, port, _ := net.SplitHostPort(t.addr)
	if port == "443" {
		return bracketIPv6(t.host)
	}
	return net.JoinHostPort(t.host, port)
}

func bracketIPv6(h string) string {
	if ip := net.ParseIP(h); ip != nil && ip.To4() == nil {
		return "[" + h + "]"
	}
	return h
}
