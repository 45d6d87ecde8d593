package labtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// Mode is how a Misbehaving server treats each connection it accepts.
// The modes are package variables and functions, grouped by protocol in
// files of their own (http1modes.go, tlsmodes.go); a new one is a Mode
// value with a serve function.
type Mode struct {
	name string
	// serve handles one accepted connection (after the TLS handshake in
	// a TLS mode) until the peer or the test ends it; it must stop when
	// ctx ends or a read or write fails, and bound every loop over what
	// it sends in bytes or count.
	serve func(ctx context.Context, s *Misbehaving, c net.Conn)
	// tls serves the mode over TLS with a certificate of the server's CA
	// (made by cert when it is set), offering the protocols in alpn.
	tls  bool
	alpn []string
	cert func(ca *lab.CA) (tls.Certificate, error)
	// h3, when set, makes the mode an HTTP/3 server on a loopback UDP
	// port instead of a raw TCP one (h3modes.go); serve is not used.
	h3 *h3Server
}

// String returns the mode's name, for test names.
func (m Mode) String() string { return m.name }

// TLS returns m served over TLS with a certificate of the server's own
// CA, valid for lab.DefaultHosts and offering no application protocol.
func TLS(m Mode) Mode {
	m.tls = true
	m.name = "TLS " + m.name
	return m
}

// Misbehaving is a raw loopback server that answers every connection in
// one Mode: it stands in for the stalled, broken and hostile servers
// httpslab must report on without a crash, a hang or a wrong number.
type Misbehaving struct {
	// Addr is the server's host:port on 127.0.0.1.
	Addr string
	// CA is the authority a TLS mode's certificate is issued by (nil in
	// a plain TCP mode): clients trust it through CA.Pool or CA.CertPEM.
	CA *lab.CA

	mode     Mode
	accepted atomic.Int64
	replies  atomic.Int64
}

// NewMisbehaving starts a raw server in mode on a loopback port and
// stops it when the test ends, closing every connection still open.
func NewMisbehaving(t testing.TB, mode Mode) *Misbehaving {
	t.Helper()
	s := &Misbehaving{mode: mode}
	var cfg *tls.Config
	if mode.tls {
		cfg = s.tlsConfig(t)
	}
	ctx := t.Context()
	if mode.h3 != nil {
		s.Addr = mode.h3.serve(t, s, cfg)
		return s
	}
	s.Addr = ServeTCP(t, func(c net.Conn) {
		s.accepted.Add(1)
		if cfg != nil {
			c = tls.Server(c, cfg)
		}
		defer c.Close()
		mode.serve(ctx, s, c)
	})
	return s
}

// tlsConfig makes the server's CA and the certificate of its TLS mode.
func (s *Misbehaving) tlsConfig(t testing.TB) *tls.Config {
	t.Helper()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	s.CA = ca
	var cert tls.Certificate
	if s.mode.cert != nil {
		cert, err = s.mode.cert(ca)
	} else {
		var leaf *lab.Leaf
		if leaf, err = ca.Issue(lab.ECDSAP256, lab.DefaultHosts...); err == nil {
			cert = leaf.TLS
		}
	}
	if err != nil {
		t.Fatalf("issuing the %s server's certificate: %v", s.mode, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: s.mode.alpn}
}

// URL returns the server's root URL: https:// in a TLS mode, else http://.
func (s *Misbehaving) URL() string {
	if s.mode.tls {
		return "https://" + s.Addr + "/"
	}
	return "http://" + s.Addr + "/"
}

// Accepted returns the number of connections the server accepted.
func (s *Misbehaving) Accepted() int64 { return s.accepted.Load() }

// Replies returns the number of responses the server wrote. A response
// is counted before it is written (and the count taken back if the write
// fails), so that a client that read it and ended its run finds it
// counted.
func (s *Misbehaving) Replies() int64 { return s.replies.Load() }

// reply writes b as one response, counted in Replies.
func (s *Misbehaving) reply(c net.Conn, b []byte) error {
	s.replies.Add(1)
	if _, err := c.Write(b); err != nil {
		s.replies.Add(-1)
		return err
	}
	return nil
}

// maxRequest bounds what readRequest reads.
const maxRequest = 64 << 10

// readRequest reads what the client sends first: an HTTP/1 request up to
// the blank line after its header, or for anything else (a ClientHello,
// the HTTP/2 preface) whatever the first read returns. It returns false
// when the client closed or the read failed.
func readRequest(c net.Conn) bool {
	buf := make([]byte, 0, 4096)
	for len(buf) < maxRequest {
		n, err := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if n > 0 && (buf[0] < 'A' || buf[0] > 'Z' || bytes.Contains(buf, []byte("\r\n\r\n"))) {
			return true
		}
		if err != nil {
			return false
		}
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, 4096)...)[:len(buf)]
		}
	}
	return true
}

// Bounds of the modes that never end by themselves: a client under test
// that keeps reading stops the server after this many bytes or this long.
const (
	endlessBytes = 1 << 30
	endlessTime  = 2 * time.Minute
)

// endless writes head and then chunk again and again until the client
// stops reading, ctx ends, or endlessBytes or endlessTime are reached.
func endless(ctx context.Context, c net.Conn, head, chunk []byte) {
	deadline := time.Now().Add(endlessTime)
	c.SetWriteDeadline(deadline)
	if _, err := c.Write(head); err != nil {
		return
	}
	for sent := len(head); sent < endlessBytes && ctx.Err() == nil; sent += len(chunk) {
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
}
