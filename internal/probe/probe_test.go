package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"crypto/x509"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// caFile writes the CA of a lab server or nginx for the client to trust.
func caFile(t *testing.T, ca *lab.CA) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := ca.WriteFile(path); err != nil {
		t.Fatalf("writing CA: %v", err)
	}
	return path
}

// routes parses --resolve and --connect-to entries for a test.
func routes(t *testing.T, resolve, connectTo []string) transport.Routes {
	t.Helper()
	r, err := transport.ParseRoutes(resolve, connectTo, 0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// do runs one probe of mode on c and fails the test on error.
func do(t *testing.T, c *Client, mode transport.ConnMode) *Timeline {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, mode)
	if err != nil {
		t.Fatalf("Do(%v): %v", mode, err)
	}
	return res.Final()
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// assertOrdered checks that the phases are non-negative, in the canonical
// order, each starting when or after the previous one ended, and that the
// named ones are present.
func assertOrdered(t *testing.T, tl *Timeline, want ...string) {
	t.Helper()
	order := map[string]int{PhaseDNS: 0, PhaseConnect: 1, PhaseTLS: 2, PhaseSend: 3, PhaseWait: 4, PhaseDownload: 5}
	var prevEnd time.Duration
	prev := -1
	for _, p := range tl.Phases {
		if p.Duration < 0 || p.Start < 0 {
			t.Errorf("phase %s: start %v, duration %v; want non-negative", p.Name, p.Start, p.Duration)
		}
		if order[p.Name] <= prev {
			t.Errorf("phase %s out of order in %v", p.Name, tl.Phases)
		}
		if p.Start < prevEnd {
			t.Errorf("phase %s starts at %v, before the previous phase ended at %v", p.Name, p.Start, prevEnd)
		}
		prev, prevEnd = order[p.Name], p.Start+p.Duration
	}
	if prevEnd > tl.Total {
		t.Errorf("phases end at %v, after the total %v", prevEnd, tl.Total)
	}
	for _, name := range want {
		if _, ok := tl.Phase(name); !ok {
			t.Errorf("phase %s missing from %v", name, tl.Phases)
		}
	}
}

func TestPhasesOrdered(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	ca := caFile(t, srv.CA)
	all := []string{PhaseConnect, PhaseTLS, PhaseSend, PhaseWait, PhaseDownload}
	tests := []struct {
		name, url string
		proto     transport.Protocol
		wantProto string
		want      []string
	}{
		{"http1.1", srv.HTTPSURL + "/bytes/20000", transport.HTTP1, "HTTP/1.1", all},
		{"http2", srv.HTTPSURL + "/bytes/20000", transport.HTTP2, "HTTP/2.0", all},
		{"http3", srv.HTTPSURL + "/bytes/20000", transport.HTTP3, "HTTP/3.0", []string{PhaseTLS, PhaseSend, PhaseWait, PhaseDownload}},
		{"plain", srv.HTTPURL + "/bytes/20000", transport.ProtoAuto, "HTTP/1.1", []string{PhaseConnect, PhaseSend, PhaseWait, PhaseDownload}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, Config{URL: tt.url, Protocol: tt.proto, TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}})
			for range 3 {
				tl := do(t, c, transport.Fresh)
				assertOrdered(t, tl, tt.want...)
				if tl.Proto != tt.wantProto || tl.Status != 200 {
					t.Errorf("got %s %d; want %s 200", tl.Proto, tl.Status, tt.wantProto)
				}
				if _, ok := tl.Phase(PhaseDNS); ok {
					t.Errorf("DNS phase for an IP address URL")
				}
				if tl.Bytes.BodySize != 20000 || tl.Bytes.ResponseRead < 20000 {
					t.Errorf("body %d B, response read %d B; want 20000 and at least that on the wire", tl.Bytes.BodySize, tl.Bytes.ResponseRead)
				}
				if tl.RTT.Best() <= 0 {
					t.Errorf("no RTT measured: %+v", tl.RTT)
				}
				if (tl.TLS != nil) != (tt.name != "plain") {
					t.Errorf("TLS facts %+v for %s", tl.TLS, tt.url)
				}
				if tl.TLS != nil && (tl.Bytes.HandshakeRead == 0 || tl.Bytes.HandshakeWritten == 0 || !tl.TLS.Verified) {
					t.Errorf("handshake bytes %+v, verified %v; want both directions counted and verified", tl.Bytes, tl.TLS.Verified)
				}
			}
		})
	}
}

func TestDNSAndDialAttempts(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	u := "https://localhost:" + port(t, srv.HTTPSURL) + "/"
	c := newClient(t, Config{URL: u, Protocol: transport.HTTP1, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	tl := do(t, c, transport.Fresh)
	assertOrdered(t, tl, PhaseDNS, PhaseConnect, PhaseTLS)
	if len(tl.Dials) == 0 {
		t.Fatalf("no dial attempts recorded")
	}
	last := tl.Dials[len(tl.Dials)-1]
	if last.Err != "" || last.Addr != tl.RemoteAddr {
		t.Errorf("last dial %+v; want the successful one to %s", last, tl.RemoteAddr)
	}
}

func TestResolveAndConnectTo(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	p := port(t, srv.HTTPSURL)
	ca := caFile(t, srv.CA)
	tests := []struct {
		name string
		cfg  Config
	}{
		{"resolve", Config{URL: "https://httpslab.test:" + p + "/", Routes: routes(t, []string{"httpslab.test:" + p + ":127.0.0.1"}, nil)}},
		{"connect-to", Config{URL: "https://httpslab.test:443/", Routes: routes(t, nil, []string{"httpslab.test:443:127.0.0.1:" + p})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.TLS.CAFile = ca
			tl := do(t, newClient(t, tt.cfg), transport.Fresh)
			if _, ok := tl.Phase(PhaseDNS); ok {
				t.Errorf("DNS phase with %s", tt.name)
			}
			if tl.RemoteAddr != "127.0.0.1:"+p || tl.TLS.ServerName != "httpslab.test" {
				t.Errorf("connected to %s with SNI %q; want 127.0.0.1:%s and httpslab.test", tl.RemoteAddr, tl.TLS.ServerName, p)
			}
		})
	}
}

func port(t *testing.T, u string) string {
	t.Helper()
	for i := len(u) - 1; i >= 0; i-- {
		if u[i] == ':' {
			return u[i+1:]
		}
	}
	t.Fatalf("no port in %q", u)
	return ""
}

func TestReuse(t *testing.T) {
	for _, proto := range []transport.Protocol{transport.HTTP1, transport.HTTP2, transport.HTTP3} {
		t.Run(proto.Token(), func(t *testing.T) {
			srv := labtest.StartServer(t, lab.Config{})
			c := newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: proto, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
			first := do(t, c, transport.Fresh)
			second := do(t, c, transport.KeepAlive)
			if second.TLS == nil || second.TLS.Version != first.TLS.Version {
				t.Errorf("reused connection TLS facts %+v; want those of the connection", second.TLS)
			}
			if first.Reused || !second.Reused {
				t.Errorf("reused: first %v, second %v; want false, true", first.Reused, second.Reused)
			}
			for _, name := range []string{PhaseDNS, PhaseConnect, PhaseTLS} {
				if _, ok := second.Phase(name); ok {
					t.Errorf("reused connection has a %s phase: %v", name, second.Phases)
				}
			}
			assertOrdered(t, second, PhaseSend, PhaseWait, PhaseDownload)
			if second.Bytes.HandshakeRead != 0 || second.Bytes.RequestWritten == 0 {
				t.Errorf("reused bytes %+v; want no handshake bytes and some request bytes", second.Bytes)
			}
			if got := srv.Stats().Handshakes; got != 1 {
				t.Errorf("server saw %d handshakes; want 1", got)
			}
		})
	}
}

func TestTLSVersionAndGroup(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	ca := caFile(t, srv.CA)
	tests := []struct {
		name      string
		tls       transport.TLS
		version   string
		group     string
		pq, retry bool
	}{
		{"default", transport.TLS{}, "TLS 1.3", "X25519MLKEM768", true, false},
		{"tls-max 1.2", transport.TLS{Max: tls.VersionTLS12}, "TLS 1.2", "x25519", false, false},
		{"curves P-256", transport.TLS{Curves: []tls.CurveID{tls.CurveP256}}, "TLS 1.3", "secp256r1", false, false},
		{"tls-max 1.2 curves P-384", transport.TLS{Max: tls.VersionTLS12, Curves: []tls.CurveID{tls.CurveP384}}, "TLS 1.2", "secp384r1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.tls.CAFile = ca
			tl := do(t, newClient(t, Config{URL: srv.HTTPSURL + "/", TLS: tt.tls}), transport.Fresh)
			got := tl.TLS
			if got.Version != tt.version || got.Group != tt.group || got.PostQuantum != tt.pq || got.HelloRetry != tt.retry {
				t.Errorf("got %s, group %s, post-quantum %v, retry %v; want %s, %s, %v, %v",
					got.Version, got.Group, got.PostQuantum, got.HelloRetry, tt.version, tt.group, tt.pq, tt.retry)
			}
		})
	}
}

// TestLegacyTLSVersions probes a server that still accepts TLS 1.0 and
// 1.1 with a maximum below 1.2: the handshake uses that version and ALPN
// offers HTTP/1.1 only, since HTTP/2 needs TLS 1.2 or later.
func TestLegacyTLSVersions(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{MinVersion: tls.VersionTLS10, NoHTTP3: true})
	ca := caFile(t, srv.CA)
	for _, v := range []uint16{tls.VersionTLS10, tls.VersionTLS11} {
		t.Run(tls.VersionName(v), func(t *testing.T) {
			cfg := Config{URL: srv.HTTPSURL + "/", TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}, Min: tls.VersionTLS10, Max: v}}
			tl := do(t, newClient(t, cfg), transport.Fresh)
			if tl.TLS.Version != tls.VersionName(v) || tl.TLS.ALPN != "http/1.1" || tl.Status != 200 {
				t.Errorf("got %s, ALPN %q, status %d; want %s, http/1.1, 200", tl.TLS.Version, tl.TLS.ALPN, tl.Status, tls.VersionName(v))
			}
		})
	}
}

func TestResume(t *testing.T) {
	tests := []struct {
		name      string
		cfg       lab.Config
		proto     transport.Protocol
		max       uint16
		wantTick  bool
		wantResum bool
	}{
		{"tickets tls1.3", lab.Config{}, transport.HTTP1, 0, true, true},
		{"tickets tls1.2", lab.Config{}, transport.HTTP2, tls.VersionTLS12, true, true},
		{"tickets http3", lab.Config{}, transport.HTTP3, 0, true, true},
		{"no tickets", lab.Config{NoTickets: true}, transport.HTTP1, 0, false, false},
		{"no tickets tls1.2", lab.Config{NoTickets: true}, transport.HTTP1, tls.VersionTLS12, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := labtest.StartServer(t, tt.cfg)
			c := newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: tt.proto, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}, Max: tt.max}})
			first, second := do(t, c, transport.Resumed), do(t, c, transport.Resumed)
			if first.TLS.Resumed || second.TLS.Resumed != tt.wantResum {
				t.Errorf("resumed: first %v, second %v; want false, %v", first.TLS.Resumed, second.TLS.Resumed, tt.wantResum)
			}
			if got := c.Tickets() > 0; got != tt.wantTick {
				t.Errorf("tickets received: %d; want some: %v", c.Tickets(), tt.wantTick)
			}
			st := srv.Stats()
			if st.Handshakes != 2 || (st.Resumed == 1) != tt.wantResum {
				t.Errorf("server stats %+v; want 2 handshakes, resumed %v", st, tt.wantResum)
			}
			if tt.wantResum && second.Bytes.HandshakeRead >= first.Bytes.HandshakeRead {
				t.Errorf("server handshake bytes: resumed %d, full %d; want fewer resumed (no certificate)", second.Bytes.HandshakeRead, first.Bytes.HandshakeRead)
			}
		})
	}
}

func TestFreshDoesNotResume(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	c := newClient(t, Config{URL: srv.HTTPSURL + "/", TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	do(t, c, transport.Fresh)
	if tl := do(t, c, transport.Fresh); tl.TLS.Resumed {
		t.Errorf("a Fresh connection resumed")
	}
	if st := srv.Stats(); st.Resumed != 0 {
		t.Errorf("server saw %d resumptions; want 0", st.Resumed)
	}
}

// TestTrustFromPool: a CA held in memory (transport.TLS.RootCAs) verifies
// the server on every protocol, with no CA file written; a pool of
// another CA does not.
func TestTrustFromPool(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	for _, proto := range []transport.Protocol{transport.HTTP1, transport.HTTP2, transport.HTTP3} {
		tl := do(t, newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: proto, TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}}), transport.Fresh)
		if !tl.TLS.Verified {
			t.Errorf("%s with the server's CA as a pool: not verified", proto)
		}
	}
	other, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Config{URL: srv.HTTPSURL + "/", TLS: transport.TLS{Trust: transport.Trust{RootCAs: other.Pool()}}})
	var unknown x509.UnknownAuthorityError
	if _, err := c.Do(context.Background(), transport.Fresh); !errors.As(err, &unknown) {
		t.Errorf("Do with another CA's pool: %v; want an unknown authority", err)
	}
}

func TestCertificateKeySize(t *testing.T) {
	read := map[lab.KeyKind]int64{}
	for _, kind := range []lab.KeyKind{lab.ECDSAP256, lab.RSA2048} {
		srv := labtest.StartServer(t, lab.Config{Cert: kind})
		tl := do(t, newClient(t, Config{URL: srv.HTTPSURL + "/", TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}}), transport.Fresh)
		read[kind] = tl.Bytes.HandshakeRead
		wantKey := map[lab.KeyKind]string{lab.ECDSAP256: "ECDSA P-256", lab.RSA2048: "RSA 2048"}[kind]
		if len(tl.TLS.Chain) == 0 || tl.TLS.Chain[0].KeyType != wantKey || tl.TLS.ChainBytes == 0 {
			t.Errorf("%s: chain %+v; want a %s leaf", kind, tl.TLS.Chain, wantKey)
		}
	}
	if read[lab.RSA2048] <= read[lab.ECDSAP256] {
		t.Errorf("server handshake bytes: RSA-2048 %d, ECDSA P-256 %d; want RSA larger", read[lab.RSA2048], read[lab.ECDSAP256])
	}
}

func TestRedirects(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	c := newClient(t, Config{URL: srv.HTTPSURL + "/redirect/2", FollowRedirects: true, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, transport.Fresh)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if len(res.Hops) != 3 || res.Final().Status != 200 || res.Hops[0].Status/100 != 3 {
		t.Fatalf("hops %d, final status %d; want 3 hops ending in 200", len(res.Hops), res.Final().Status)
	}
	if res.Hops[0].Reused || !res.Hops[1].Reused {
		t.Errorf("hop reuse %v, %v; want a new connection then the same", res.Hops[0].Reused, res.Hops[1].Reused)
	}
	c2 := newClient(t, Config{URL: srv.HTTPSURL + "/redirect/2", TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	if tl := do(t, c2, transport.Fresh); tl.Status/100 != 3 {
		t.Errorf("without FollowRedirects: status %d; want the 3xx", tl.Status)
	}
}

func TestErrors(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	closed := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	closedURL := closed.HTTPSURL
	closed.Close()
	tests := []struct {
		name  string
		cfg   Config
		check func(error) bool
		phase string // a phase that completed before the failure
	}{
		{"refused", Config{URL: closedURL + "/"}, func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }, ""},
		{"unknown CA", Config{URL: srv.HTTPSURL + "/"}, func(err error) bool {
			var e x509.UnknownAuthorityError
			return errors.As(err, &e)
		}, PhaseConnect},
		{"wrong name", Config{URL: srv.HTTPSURL + "/", TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}, ServerName: "other.test"}}, func(err error) bool {
			var e x509.HostnameError
			return errors.As(err, &e)
		}, PhaseConnect},
		{"timeout", Config{URL: srv.HTTPSURL + "/delay/5s", Timeout: 200 * time.Millisecond, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}}, func(err error) bool {
			return errors.Is(err, context.DeadlineExceeded)
		}, PhaseTLS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := newClient(t, tt.cfg).Do(ctx, transport.Fresh)
			if err == nil || !tt.check(err) {
				t.Fatalf("Do: error %v; want a %s error", err, tt.name)
			}
			fin := res.Final()
			if fin == nil || fin.Err == "" {
				t.Fatalf("result %+v; want the failed hop with its error", res)
			}
			if tt.phase != "" {
				if _, ok := fin.Phase(tt.phase); !ok {
					t.Errorf("phases %v; want %s, which completed", fin.Phases, tt.phase)
				}
			}
			if _, ok := fin.Phase(PhaseDownload); ok {
				t.Errorf("a failed request has a download phase")
			}
		})
	}
}

func TestZeroRTTNeedsHTTP3(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := newClient(t, Config{URL: srv.HTTPSURL}).Do(ctx, transport.ZeroRTT); err == nil {
		t.Errorf("0-RTT over TCP: no error")
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{URL: "ftp://x/"},
		{URL: "https:///"},
		{URL: "http://x/", Protocol: transport.HTTP3},
		{URL: "https://x/", Protocol: transport.Protocol(7)},
		{URL: "https://x/", Routes: transport.Routes{IPVersion: 5}},
		{URL: "https://x/", TLS: transport.TLS{Trust: transport.Trust{CAFile: "/nonexistent/ca.pem"}}},
		{URL: "https://x/", Protocol: transport.HTTP2, TLS: transport.TLS{Max: tls.VersionTLS11}},
		{URL: "https://x/", Protocol: transport.HTTP3, TLS: transport.TLS{Max: tls.VersionTLS10}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}

// TestHTTP3TriesTheNextAddress: UDP has no refusal, so a QUIC dial to an
// address where nothing listens must not hold up the next address for
// longer than the attempt delay.
func TestHTTP3TriesTheNextAddress(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	p := port(t, srv.HTTPSURL)
	c := newClient(t, Config{URL: "https://httpslab.test:" + p + "/", Protocol: transport.HTTP3,
		Routes: routes(t, []string{"httpslab.test:" + p + ":127.0.0.2,127.0.0.1"}, nil), TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	tl := do(t, c, transport.Fresh)
	tlsPhase, _ := tl.Phase(PhaseTLS)
	if tl.RemoteAddr != "127.0.0.1:"+p || tl.Status != 200 {
		t.Errorf("answered by %s with %d; want 127.0.0.1:%s and 200", tl.RemoteAddr, tl.Status, p)
	}
	if tlsPhase.Duration < 250*time.Millisecond || tlsPhase.Duration > 5*time.Second {
		t.Errorf("QUIC handshake took %v; want the 250ms attempt delay and then one handshake", tlsPhase.Duration)
	}
	if len(tl.Dials) != 2 || tl.Dials[0].Addr != "127.0.0.2:"+p || tl.Dials[0].Err == "" || tl.Dials[1].Err != "" || tl.Dials[1].Network != "udp" {
		t.Errorf("dial attempts %+v; want 127.0.0.2 given up, then 127.0.0.1 over udp", tl.Dials)
	}
	if _, ok := tl.Phase(PhaseConnect); ok || tl.RTT.Connect != 0 {
		t.Errorf("HTTP/3 has a connect phase or connect RTT: %v, %v", tl.Phases, tl.RTT.Connect)
	}
}
