package tlsscan

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// vulnIDs are the checks that must find each flaw of a VulnServer: a
// server without renegotiation_info also renegotiates when asked.
var vulnIDs = map[labtest.Vuln][]string{
	labtest.Heartbleed: {idHeartbleed}, labtest.CCSInjection: {idCCSInjection}, labtest.Ticketbleed: {idTicketbleed},
	labtest.ROBOT: {idROBOT}, labtest.InsecureRenegotiation: {idRenegotiation, idClientRenegotiation},
	labtest.ClientRenegotiation: {idClientRenegotiation}, labtest.Compression: {idCompression},
	labtest.NoFallbackSCSV: {idFallbackSCSV}, labtest.SSLv2: {idSSLv2}, labtest.SSLv3: {idSSLv3},
}

// auditAddr audits host:port, trusting any chain.
func auditAddr(t *testing.T, addr string) *Report {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{Host: host, Port: p, Trust: transport.Trust{Insecure: true}, Attempts: 2, Concurrency: 4})
	if err != nil {
		t.Fatalf("Run(%s): %v", addr, err)
	}
	return rep
}

func checkByID(r *Report, id string) *VulnCheck {
	for i := range r.Vulnerabilities {
		if r.Vulnerabilities[i].ID == id {
			return &r.Vulnerabilities[i]
		}
	}
	return nil
}

// TestVulnChecksFindEachFlaw audits a server with each flaw: its check
// says vulnerable, with a finding, and every other check does not.
func TestVulnChecksFindEachFlaw(t *testing.T) {
	for _, v := range labtest.Vulns {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			s := labtest.StartVulnServer(t, v)
			rep := auditAddr(t, s.Addr)
			want := vulnIDs[v]
			for _, c := range rep.Vulnerabilities {
				t.Logf("%s: %s: %s (%v)", c.ID, c.Status, c.Seen, c.Elapsed)
				if got := c.Status == Vulnerable; got != slices.Contains(want, c.ID) {
					t.Errorf("check %s: status %s (%s); want vulnerable only for %v", c.ID, c.Status, c.Seen, want)
				}
			}
			for _, id := range want {
				if checkByID(rep, id) == nil || findingByID(rep.Findings, id) == nil {
					t.Errorf("no check or finding %s in %v", id, ids(rep))
				}
			}
		})
	}
}

// TestVulnChecksNginx audits Debian's nginx with old versions and CBC
// suites allowed: no check finds a flaw, and each check that applies
// says so with what it saw.
func TestVulnChecksNginx(t *testing.T) {
	t.Parallel()
	rep := auditNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: `
ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
ssl_ciphers ALL:@SECLEVEL=0;
ssl_session_tickets on;`})
	if len(rep.Vulnerabilities) != len(vulnFindings) {
		t.Errorf("%d checks; want %d", len(rep.Vulnerabilities), len(vulnFindings))
	}
	for _, c := range rep.Vulnerabilities {
		t.Logf("%s: %s: %s (%v)", c.ID, c.Status, c.Seen, c.Elapsed)
		if c.Status == Vulnerable || c.Status == NotMeasured {
			t.Errorf("check %s: %s (%s)", c.ID, c.Status, c.Seen)
		}
		if f := findingByID(rep.Findings, c.ID); f != nil {
			t.Errorf("finding %s on nginx: %s", c.ID, f.Evidence)
		}
	}
}

// FuzzReadFlight feeds the checks' reader of a server's first flight
// arbitrary bytes: it returns, within its record bound, without panicking.
func FuzzReadFlight(f *testing.F) {
	hello := serverHelloBody(f, VersionTLS12, make([]byte, 32), 0x002f, func(b *cryptobyte.Builder) {
		b.AddUint16(extHeartbeat)
		b.AddUint16(1)
		b.AddUint8(1)
	})
	f.Add(append(wrap(msgServerHello, hello), 22, 3, 3, 0, 4, msgServerHelloDone, 0, 0, 0))
	f.Add([]byte{21, 3, 3, 0, 2, 2, 40})
	f.Add([]byte{24, 3, 3, 0, 3, 2, 0x40, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := readFlight(bytes.NewReader(data))
		if err == nil && fl.hello != nil && fl.hello.exts == nil {
			t.Fatal("a ServerHello without its extension map")
		}
		_ = fl.describe()
	})
}

// FuzzReadFullFlight feeds the reader of the first flight that the
// renegotiation check completes arbitrary bytes.
func FuzzReadFullFlight(f *testing.F) {
	hello := serverHelloBody(f, VersionTLS12, make([]byte, 32), 0xc02f, func(b *cryptobyte.Builder) {
		b.AddUint16(extRenegotiation)
		b.AddUint16(1)
		b.AddUint8(0)
	})
	ske := []byte{3, 0, 29, 32}
	ske = append(ske, make([]byte, 32)...)
	cert := []byte{0, 0, 5, 0, 0, 2, 0x30, 0}
	flight := slices.Concat(wrap(msgServerHello, hello), wrap(msgCertificate, cert), wrap(msgServerKeyExchange, ske), wrap(msgServerHelloDone, nil))
	f.Add(flight)
	dheHello := serverHelloBody(f, VersionTLS12, make([]byte, 32), 0x009e, nil)
	dhe := []byte{0, 1, 23, 0, 1, 5, 0, 1, 8} // p = 23, g = 5, Ys = 8
	f.Add(slices.Concat(wrap(msgServerHello, dheHello), wrap(msgCertificate, cert), wrap(msgServerKeyExchange, dhe), wrap(msgServerHelloDone, nil)))
	f.Add([]byte{21, 3, 3, 0, 2, 2, 40})
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, _ := readFullFlight(bytes.NewReader(data))
		_ = fl.describe()
		_ = firstCertificate(data)
		if fl.dh != nil {
			// The group's size is bounded, so is the work on it.
			_, _, _ = fl.clientKeyExchange()
		}
	})
}

// TestReadDHParams: the renegotiation check takes a DHE group whose
// prime is at most 8192 bits and whose generator and public value lie
// between 2 and p-2, and refuses every other.
func TestReadDHParams(t *testing.T) {
	param := func(b []byte) []byte { return append([]byte{byte(len(b) >> 8), byte(len(b))}, b...) }
	huge := append([]byte{1}, make([]byte, maxDHBits/8)...) // 2^8192: 8193 bits
	for _, tt := range []struct {
		name    string
		p, g, y []byte
		ok      bool
	}{
		{"p=23", []byte{23}, []byte{5}, []byte{8}, true},
		{"g=1", []byte{23}, []byte{1}, []byte{8}, false},
		{"y=p-1", []byte{23}, []byte{5}, []byte{22}, false},
		{"y=0", []byte{23}, []byte{5}, nil, false},
		{"8193-bit p", huge, []byte{2}, []byte{8}, false},
	} {
		var f fullFlight
		err := f.readDHParams(slices.Concat(param(tt.p), param(tt.g), param(tt.y)))
		if (err == nil) != tt.ok || (err == nil) != (f.dh != nil) {
			t.Errorf("readDHParams(%s) = %v, group %v; want ok %v", tt.name, err, f.dh, tt.ok)
		}
	}
	var f fullFlight
	if err := f.readDHParams([]byte{0, 1, 23, 0, 1}); err == nil {
		t.Error("readDHParams of a truncated ServerKeyExchange: no error")
	}
}

// TestVulnChecksBounded runs the checks against a server that accepts
// connections and never answers: each ends at its deadline, as not
// measured, and all of them together within a few deadlines; the SSLv2
// check, whose silence means no SSLv2, ends earlier, not vulnerable.
func TestVulnChecksBounded(t *testing.T) {
	addr := labtest.ServeTCP(t, func(c net.Conn) {
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<20))
	})
	const deadline = 1500 * time.Millisecond
	p := newProber(addr, "127.0.0.1", 8, deadline, nil)
	start := time.Now()
	s := scanVulns(context.Background(), p)
	if took := time.Since(start); took > 10*deadline {
		t.Errorf("the checks took %v; want each ended at its deadline of %v", took, deadline)
	}
	for _, c := range s.checks {
		if want := NotMeasured; c.ID == idSSLv2 && c.Status != NotVulnerable || c.ID != idSSLv2 && c.Status != want {
			t.Errorf("check %s against a silent server: %s (%s); want not-measured", c.ID, c.Status, c.Seen)
		}
	}
	if s.fallback.err == nil {
		t.Errorf("the fallback ClientHellos got no error from a silent server: %v", s.fallback.answers)
	}
}

// TestClientRenegotiationSuites: the renegotiation check completes its
// handshake with whichever AEAD suite nginx accepts (AES-128-GCM,
// AES-256-GCM with SHA-384, ChaCha20-Poly1305; ECDHE or RSA key
// exchange), so it measures nginx, which refuses to renegotiate, instead
// of saying it does not speak the suite. The server's Finished decrypting
// is what shows the keys right.
func TestClientRenegotiationSuites(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cert  lab.KeyKind
		suite string
	}{
		{lab.ECDSAP256, "ECDHE-ECDSA-AES128-GCM-SHA256"},
		{lab.ECDSAP256, "ECDHE-ECDSA-AES256-GCM-SHA384"},
		{lab.ECDSAP256, "ECDHE-ECDSA-CHACHA20-POLY1305"},
		{lab.RSA2048, "ECDHE-RSA-CHACHA20-POLY1305"},
		{lab.RSA2048, "AES256-GCM-SHA384"},
	} {
		t.Run(tt.suite, func(t *testing.T) {
			t.Parallel()
			n := labtest.StartNginx(t, lab.NginxConfig{Cert: tt.cert, NoDefaults: true,
				TLSDirectives: "ssl_protocols TLSv1.2;\nssl_ciphers " + tt.suite + ";"})
			u, _ := url.Parse(n.HTTPSURL)
			p := newProber(u.Host, "127.0.0.1", 2, 5*time.Second, nil)
			status, seen, err := checkClientRenegotiation(context.Background(), p)
			if err != nil || status != NotVulnerable {
				t.Errorf("checkClientRenegotiation = %s (%s), %v; want not vulnerable, after a complete handshake", status, seen, err)
			}
		})
	}
}

// TestClientRenegotiationCBCGo: the renegotiation check speaks each CBC
// suite Go's server implements (AES and 3DES, HMAC-SHA1 and SHA-256, RSA
// and ECDHE key exchange, ECDSA and RSA certificates) with a server held
// to that one suite: the server's Finished decrypts and its MAC checks,
// and the server decrypts the check's ClientHello, which it refuses as Go
// refuses every handshake message after the handshake, with the alert
// unexpected_message (a record the server could not decrypt would get
// bad_record_mac).
func TestClientRenegotiationCBCGo(t *testing.T) {
	t.Parallel()
	ca, err := lab.NewCA(lab.RSA2048)
	if err != nil {
		t.Fatal(err)
	}
	var tested int
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if renegSuites[s.ID].cbc == nil || !slices.Contains(s.SupportedVersions, tls.VersionTLS12) {
			continue
		}
		tested++
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			kind := lab.RSA2048
			if strings.Contains(s.Name, "_ECDSA_") {
				kind = lab.ECDSAP256
			}
			leaf, err := ca.Issue(kind, "127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf.TLS}, MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{s.ID}}
			srv.Config.ErrorLog = log.New(io.Discard, "", 0)
			srv.StartTLS()
			defer srv.Close()
			u, _ := url.Parse(srv.URL)
			status, seen, err := checkClientRenegotiation(context.Background(), newProber(u.Host, "127.0.0.1", 2, 5*time.Second, nil))
			if err != nil || status != NotVulnerable || !strings.HasPrefix(seen, s.Name+": ") || !strings.Contains(seen, "alert 10 (unexpected_message)") {
				t.Errorf("checkClientRenegotiation = %s (%s), %v; want not vulnerable with %s, alert unexpected_message", status, seen, err, s.Name)
			}
		})
	}
	if tested < 10 {
		t.Errorf("%d CBC suites of Go's tested; want the 10 or more Go implements", tested)
	}
}

// FuzzClientCBCOpen: whatever a server sends as a CBC record, open
// returns an error or content, never panics, and takes back only what
// seal made with the same keys and sequence number.
func FuzzClientCBCOpen(f *testing.F) {
	suite := renegSuites[0xc027] // AES-128-CBC, HMAC-SHA256
	kb := bytes.Repeat([]byte{7}, suite.keyBlockLen())
	out, _, err := suite.protections(kb)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(out.seal(recordHandshake, []byte("finished"))[5:])
	f.Add(out.seal(recordAlert, []byte{1, 0})[5:])
	f.Add(make([]byte, 16))
	f.Add(make([]byte, 48))
	f.Fuzz(func(t *testing.T, payload []byte) {
		// The client's keys open what the client sealed: its own
		// direction, read back at sequence number 0.
		in, _, err := suite.protections(kb)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := in.open(record{typ: recordHandshake, payload: payload})
		if err == nil && len(plain) > len(payload) {
			t.Errorf("open returned %d bytes from a %d-byte record", len(plain), len(payload))
		}
	})
}

// TestClientCBCRoundTrip: a record sealed with a CBC suite's keys opens
// with them, at each sequence number in turn, and a changed byte or a
// record out of order does not.
func TestClientCBCRoundTrip(t *testing.T) {
	for _, id := range []uint16{0x002f, 0xc027, 0xc028, 0x000a} {
		suite := renegSuites[id]
		kb := make([]byte, suite.keyBlockLen())
		for i := range kb {
			kb[i] = byte(i)
		}
		seal, _, _ := suite.protections(kb)
		open, _, _ := suite.protections(kb)
		for _, msg := range []string{"", "a", strings.Repeat("x", 100)} {
			rec := seal.seal(recordHandshake, []byte(msg))
			got, err := open.open(record{typ: recordHandshake, payload: rec[5:]})
			if err != nil || string(got) != msg {
				t.Errorf("%s: open(seal(%q)) = %q, %v", SuiteName(id), msg, got, err)
			}
		}
		rec := seal.seal(recordHandshake, []byte("changed"))
		rec[len(rec)-20] ^= 1
		if _, err := open.open(record{typ: recordHandshake, payload: rec[5:]}); err == nil {
			t.Errorf("%s: a record with a changed byte opened", SuiteName(id))
		}
		seal.seal(recordHandshake, []byte("skipped"))
		rec = seal.seal(recordHandshake, []byte("late"))
		if _, err := open.open(record{typ: recordHandshake, payload: rec[5:]}); err == nil {
			t.Errorf("%s: a record sealed at another sequence number opened", SuiteName(id))
		}
	}
}

// TestRenegotiationUnspoken: the client-renegotiation check's "no TLS 1.2
// handshake" becomes not measured when the enumeration found TLS 1.2,
// saying whether the check speaks none of its suites; any other outcome,
// or a server without TLS 1.2, is left as it was.
func TestRenegotiationUnspoken(t *testing.T) {
	const seen = "a TLS 1.2 ClientHello got alert 40 (handshake_failure): no TLS 1.2 handshake to renegotiate"
	camellia := Suite{ID: 0xc076, Name: "TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256"}
	gcm := Suite{ID: 0xc02f, Name: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}
	tls12 := func(supported bool, suites ...Suite) *Enumeration {
		return &Enumeration{Versions: []VersionResult{{Version: VersionTLS12, Supported: supported, Suites: suites}}}
	}
	for _, tt := range []struct {
		name   string
		check  VulnCheck
		e      *Enumeration
		status VulnStatus
		seen   string
	}{
		{"unspoken", VulnCheck{ID: idClientRenegotiation, Status: NotApplicable, Seen: seen}, tls12(true, camellia), NotMeasured,
			"TLS 1.2 is spoken only with suites the check does not speak (TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256): " +
				"a TLS 1.2 ClientHello got alert 40 (handshake_failure)"},
		{"spoken", VulnCheck{ID: idClientRenegotiation, Status: NotApplicable, Seen: seen}, tls12(true, camellia, gcm), NotMeasured,
			"the enumeration found TLS 1.2 (TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256), " +
				"yet a TLS 1.2 ClientHello got alert 40 (handshake_failure)"},
		{"no TLS 1.2", VulnCheck{ID: idClientRenegotiation, Status: NotApplicable, Seen: seen}, tls12(false), NotApplicable, seen},
		{"measured", VulnCheck{ID: idClientRenegotiation, Status: NotVulnerable, Seen: "refused"}, tls12(true, camellia), NotVulnerable, "refused"},
		{"another check", VulnCheck{ID: idHeartbleed, Status: NotApplicable, Seen: seen}, tls12(true, camellia), NotApplicable, seen},
	} {
		got := renegotiationUnspoken(tt.check, tt.e)
		if got.Status != tt.status || got.Seen != tt.seen {
			t.Errorf("%s: renegotiationUnspoken = %s (%s); want %s (%s)", tt.name, got.Status, got.Seen, tt.status, tt.seen)
		}
	}
}
