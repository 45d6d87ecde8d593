package labtest

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/httpslab/httpslab/internal/lab"
)

// Vuln is a known TLS flaw a VulnServer shows on the wire.
type Vuln string

// The flaws a VulnServer can show. Each answers the ClientHellos that
// the attack on it uses as a vulnerable server does, by hand, and every
// other ClientHello with Go's TLS server (TLS 1.2 at most where the
// attack needs TLS 1.2), so that scanners that first make a real
// handshake find an HTTPS server.
const (
	// Heartbleed: a ClientHello with the heartbeat extension gets it back,
	// and a heartbeat request is answered with as many bytes as it claims.
	Heartbleed Vuln = "heartbleed"
	// CCSInjection: a ClientHello without TLS 1.3 gets a first flight; a
	// ChangeCipherSpec after it is taken silently, and the next record is
	// answered with decryption_failed, as keys from an empty master
	// secret would fail it.
	CCSInjection Vuln = "ccs-injection"
	// Ticketbleed: a ClientHello with a session ticket and a session ID
	// shorter than 32 bytes gets a ServerHello whose session ID is 32
	// bytes: the client's, then bytes of "memory".
	Ticketbleed Vuln = "ticketbleed"
	// InsecureRenegotiation: a ClientHello without TLS 1.3 gets a
	// ServerHello without the renegotiation_info extension; one that
	// offers TLS_RSA_WITH_AES_128_GCM_SHA256 gets a whole handshake, and
	// a new handshake whenever it sends a ClientHello after it.
	InsecureRenegotiation Vuln = "renegotiation"
	// ROBOT: a ClientHello without TLS 1.3 gets an RSA key-exchange
	// suite, and a ClientKeyExchange whose premaster secret begins 00 02
	// gets another alert than one that does not: a Bleichenbacher oracle.
	ROBOT Vuln = "robot"
	// ClientRenegotiation: a ClientHello without TLS 1.3 that offers
	// TLS_RSA_WITH_AES_128_GCM_SHA256 gets a whole handshake with secure
	// renegotiation (RFC 5746), and a new one whenever the client sends a
	// ClientHello after it.
	ClientRenegotiation Vuln = "client-renegotiation"
	// Compression: a ClientHello offering DEFLATE gets a ServerHello that
	// selects it.
	Compression Vuln = "compression"
	// NoFallbackSCSV: a ClientHello with TLS_FALLBACK_SCSV completes its
	// handshake at the version it offers, although TLS 1.3 is accepted.
	NoFallbackSCSV Vuln = "fallback-scsv"
	// SSLv2: an SSLv2 CLIENT-HELLO gets an SSLv2 SERVER-HELLO.
	SSLv2 Vuln = "sslv2"
	// SSLv3: an SSLv3 ClientHello gets an SSLv3 first flight with a CBC suite.
	SSLv3 Vuln = "sslv3"
)

// Vulns lists every flaw a VulnServer can show.
var Vulns = []Vuln{Heartbleed, CCSInjection, Ticketbleed, ROBOT, InsecureRenegotiation, ClientRenegotiation, Compression, NoFallbackSCSV, SSLv2, SSLv3}

// TestsslOpenSSLConf is the OpenSSL configuration testssl is run with
// against these servers: Debian's OpenSSL 3 refuses TLS 1.0 and 1.1 at
// its default security level, so testssl could not try a fallback to
// them, and refuses a server without renegotiation_info, so testssl could
// not see that it lacks it. Its client gets level 0, TLS 1.0 as the floor
// and legacy servers allowed, as testssl's own OpenSSL build has.
const TestsslOpenSSLConf = `openssl_conf = openssl_init
[openssl_init]
ssl_conf = ssl_sect
[ssl_sect]
system_default = system_default_sect
[system_default_sect]
MinProtocol = TLSv1
CipherString = DEFAULT@SECLEVEL=0
Options = UnsafeLegacyServerConnect,UnsafeLegacyRenegotiation
`

// vulnConnTime bounds each connection of a VulnServer.
const vulnConnTime = 20 * time.Second

// VulnServer is a loopback HTTPS server with one known TLS flaw.
type VulnServer struct {
	// Addr is the server's host:port on 127.0.0.1.
	Addr string
	// CA issued the server's certificate.
	CA   *lab.CA
	vuln Vuln
	stop func()
	cert tls.Certificate
	// full is Go's TLS server for every handshake the flaw is not in.
	full *tls.Config
	http *http.Server
	ln   *connListener
}

// StartVulnServer starts a server with flaw v, with an RSA certificate
// for 127.0.0.1 and localhost; it stops when the test ends.
func StartVulnServer(t testing.TB, v Vuln) *VulnServer {
	t.Helper()
	s, err := NewVulnServer(v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// NewVulnServer is StartVulnServer outside a test (scripts/audit-peers.sh
// runs testssl and sslscan against these servers): Close stops it.
func NewVulnServer(v Vuln) (*VulnServer, error) { return NewVulnServerAt(v, "") }

// NewVulnServerAt is NewVulnServer listening on host (127.0.0.1 when ""),
// such as the address of a namespace behind an emulated link
// (scripts/audit-time.sh); its certificate also names host.
func NewVulnServerAt(v Vuln, host string) (*VulnServer, error) {
	ca, err := lab.NewCA(lab.RSA2048)
	if err != nil {
		return nil, err
	}
	hosts := lab.DefaultHosts
	if host != "" && !slices.Contains(hosts, host) {
		hosts = append(slices.Clip(hosts), host)
	}
	leaf, err := ca.Issue(lab.RSA2048, hosts...)
	if err != nil {
		return nil, err
	}
	s := &VulnServer{vuln: v, cert: leaf.TLS, ln: newConnListener(), CA: ca}
	s.full = &tls.Config{Certificates: []tls.Certificate{leaf.TLS}, MinVersion: tls.VersionTLS10, NextProtos: []string{"http/1.1"}}
	switch v {
	case CCSInjection, Ticketbleed:
		s.full.MaxVersion = tls.VersionTLS12
	case SSLv3:
		// A server that still has SSLv3 has its RSA suites in the later
		// versions too, as the handshakes by hand have them in SSLv3.
		for _, cs := range tls.CipherSuites() {
			s.full.CipherSuites = append(s.full.CipherSuites, cs.ID)
		}
		s.full.CipherSuites = append(s.full.CipherSuites, rsaSuites...)
	}
	s.http = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "<html><body>vulnerable</body></html>\n")
	}), ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = s.http.Serve(s.ln) }()
	if s.Addr, s.stop, err = serveTCP(host, s.handle); err != nil {
		s.http.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the server and closes its connections.
func (s *VulnServer) Close() {
	s.stop()
	s.http.Close()
}

// handle reads the ClientHello and answers it by hand when the flaw is
// in its handshake, else hands the connection to Go's TLS server.
func (s *VulnServer) handle(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(vulnConnTime))
	var first [1]byte
	if _, err := io.ReadFull(c, first[:]); err != nil {
		c.Close()
		return
	}
	if first[0]&0x80 != 0 {
		defer c.Close()
		if s.vuln == SSLv2 {
			s.serveSSLv2(c, first[0])
		}
		return
	}
	raw, hello, err := readClientHello(c, first[0])
	if err != nil {
		c.Close()
		return
	}
	if s.byHand(hello) {
		defer c.Close()
		s.serveByHand(c, hello)
		return
	}
	cfg := s.full
	if s.vuln == NoFallbackSCSV && slices.Contains(hello.suites, 0x5600) {
		// Ignoring the SCSV is completing the handshake at the version
		// the client offers, as if it were the newest.
		cfg = cfg.Clone()
		cfg.MaxVersion = min(hello.version, tls.VersionTLS12)
	}
	_ = c.SetDeadline(time.Time{})
	s.ln.push(tls.Server(&replayConn{Conn: c, r: io.MultiReader(bytes.NewReader(raw), c)}, cfg))
}

// byHand reports whether the ClientHello is one the flaw is in.
func (s *VulnServer) byHand(h clientHello) bool {
	switch s.vuln {
	case Heartbleed:
		_, ok := h.exts[15]
		return ok
	case CCSInjection, InsecureRenegotiation, ROBOT:
		return !h.tls13
	case ClientRenegotiation:
		return !h.tls13 && slices.Contains(h.suites, suiteRSAAES128GCM)
	case Ticketbleed:
		return len(h.exts[35]) > 0 && len(h.sessionID) > 0 && len(h.sessionID) < 32
	case Compression:
		return slices.Contains(h.compression, 1)
	case SSLv3:
		return h.version == 0x0300
	}
	return false
}

// clientHello is what a VulnServer reads of a ClientHello.
type clientHello struct {
	version     uint16 // legacy_version
	tls13       bool   // supported_versions offers TLS 1.3
	sessionID   []byte
	suites      []uint16
	compression []uint8
	exts        map[uint16][]byte
	random      []byte
	msg         []byte // the whole handshake message, for the transcript
}

// readClientHello reads the handshake records of one ClientHello (at most
// 64 KiB) and returns their bytes and what they say.
func readClientHello(c net.Conn, first byte) ([]byte, clientHello, error) {
	raw := []byte{first}
	var msg []byte
	for len(raw) < 1<<16 {
		hdr := make([]byte, 5)
		if len(raw) == 1 {
			hdr = hdr[:4] // the first byte is read
		}
		if _, err := io.ReadFull(c, hdr); err != nil {
			return nil, clientHello{}, err
		}
		raw = append(raw, hdr...)
		rec := raw[len(raw)-5:]
		if rec[0] != 22 {
			return nil, clientHello{}, errors.New("not a handshake record")
		}
		body := make([]byte, binary.BigEndian.Uint16(rec[3:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return nil, clientHello{}, err
		}
		raw, msg = append(raw, body...), append(msg, body...)
		if len(msg) >= 4 && len(msg) >= 4+int(msg[1])<<16|int(msg[2])<<8|int(msg[3]) {
			h, err := parseClientHello(msg[4:])
			h.msg = msg
			return raw, h, err
		}
	}
	return nil, clientHello{}, errors.New("ClientHello too long")
}

func parseClientHello(b []byte) (clientHello, error) {
	h := clientHello{exts: map[uint16][]byte{}}
	s := cryptobyte.String(b)
	var random, sid, suites, comp cryptobyte.String
	if !s.ReadUint16(&h.version) || !s.ReadBytes((*[]byte)(&random), 32) || !s.ReadUint8LengthPrefixed(&sid) ||
		!s.ReadUint16LengthPrefixed(&suites) || !s.ReadUint8LengthPrefixed(&comp) {
		return h, errors.New("truncated ClientHello")
	}
	h.sessionID, h.compression, h.random = sid, comp, random
	for !suites.Empty() {
		var id uint16
		if !suites.ReadUint16(&id) {
			return h, errors.New("bad cipher suites")
		}
		h.suites = append(h.suites, id)
	}
	// A lenient server reads the extensions that are there when the
	// block's length claims more (testssl's Ticketbleed ClientHello does).
	var n uint16
	if !s.ReadUint16(&n) {
		return h, nil
	}
	exts := cryptobyte.String(s[:min(int(n), len(s))])
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return h, errors.New("bad extension")
		}
		h.exts[typ] = data
	}
	var versions cryptobyte.String
	if v := cryptobyte.String(h.exts[43]); v.ReadUint8LengthPrefixed(&versions) {
		for !versions.Empty() {
			var ver uint16
			if versions.ReadUint16(&ver) && ver == tls.VersionTLS13 {
				h.tls13 = true
			}
		}
	}
	return h, nil
}

// replayConn reads the bytes already read first.
type replayConn struct {
	net.Conn
	r io.Reader
}

func (c *replayConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// connListener hands connections to an http.Server.
type connListener struct {
	conns chan net.Conn
	done  chan struct{}
}

func newConnListener() *connListener {
	return &connListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) push(c net.Conn) {
	select {
	case l.conns <- c:
	case <-l.done:
		c.Close()
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *connListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// fill returns n bytes that stand for server memory: text a server holds
// (a request with its cookie), then random bytes.
func fill(n int) []byte {
	out := []byte("GET /account HTTP/1.1\r\nHost: localhost\r\nCookie: session=6f1d0c2e9b8a7f3e\r\n\r\n")
	rest := make([]byte, max(0, n-len(out)))
	_, _ = rand.Read(rest)
	return append(out, rest...)[:n]
}
