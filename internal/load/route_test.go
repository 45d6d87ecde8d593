package load

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

func mustResolve(t testing.TB, s string) transport.Resolve {
	t.Helper()
	r, err := transport.ParseResolve(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustConnectTo(t testing.TB, s string) transport.ConnectTo {
	t.Helper()
	c, err := transport.ParseConnectTo(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// withPort returns rawURL with its port replaced.
func withPort(t testing.TB, rawURL, host, port string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	if host == "" {
		host = u.Hostname()
	}
	u.Host = net.JoinHostPort(host, port)
	return u.String()
}

// TestRoute checks the order in which the route is worked out: the first
// matching --connect-to, then --resolve for the host and port it leads
// to, then the host itself, with the IP version applied; no DNS lookup
// happens in any of these cases.
func TestRoute(t *testing.T) {
	tests := []struct {
		name      string
		addr      string
		resolve   []string
		connectTo []string
		ipVersion int
		want      []string
		wantErr   string
	}{
		{name: "ip", addr: "127.0.0.1:443", want: []string{"127.0.0.1:443"}},
		{name: "ipv6", addr: "[::1]:8443", want: []string{"[::1]:8443"}},
		{name: "resolve", addr: "name.test:443", resolve: []string{"name.test:443:127.0.0.2,[::1]"}, want: []string{"127.0.0.2:443", "[::1]:443"}},
		{name: "resolve case", addr: "Name.Test:443", resolve: []string{"name.test:443:127.0.0.2"}, want: []string{"127.0.0.2:443"}},
		{name: "resolve wildcard", addr: "a.test:80", resolve: []string{"b.test:80:127.0.0.3", "*:80:127.0.0.4"}, want: []string{"127.0.0.4:80"}},
		{name: "resolve -4", addr: "name.test:443", resolve: []string{"name.test:443:[::1],127.0.0.2"}, ipVersion: 4, want: []string{"127.0.0.2:443"}},
		{name: "resolve -6", addr: "name.test:443", resolve: []string{"name.test:443:127.0.0.2"}, ipVersion: 6, wantErr: "no IPv6 address in --resolve"},
		{name: "ip -6", addr: "127.0.0.1:443", ipVersion: 6, wantErr: "no IPv6 address for 127.0.0.1"},
		{name: "connect-to", addr: "name.test:1", connectTo: []string{"other.test:1:x:2", "name.test:1:127.0.0.5:8443"}, want: []string{"127.0.0.5:8443"}},
		{name: "connect-to port only", addr: "127.0.0.1:1", connectTo: []string{":::8443"}, want: []string{"127.0.0.1:8443"}},
		// --resolve applies to where --connect-to leads, as in curl.
		{name: "connect-to then resolve", addr: "name.test:1", connectTo: []string{"name.test:1:origin.test:8443"},
			resolve: []string{"name.test:1:127.0.0.9", "origin.test:8443:127.0.0.6"}, want: []string{"127.0.0.6:8443"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Routes: transport.Routes{IPVersion: tt.ipVersion}, Timeout: time.Second}
			for _, r := range tt.resolve {
				cfg.Routes.Resolve = append(cfg.Routes.Resolve, mustResolve(t, r))
			}
			for _, c := range tt.connectTo {
				cfg.Routes.ConnectTo = append(cfg.Routes.ConnectTo, mustConnectTo(t, c))
			}
			got, err := route(context.Background(), cfg, tt.addr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("route(%q) = %v, %v; want error %q", tt.addr, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("route(%q): %v", tt.addr, err)
			}
			var addrs []string
			for _, ap := range got {
				addrs = append(addrs, ap.String())
			}
			if diff := cmp.Diff(tt.want, addrs); diff != "" {
				t.Errorf("route(%q) (-want +got):\n%s", tt.addr, diff)
			}
		})
	}
}

// TestRouteEmbedded runs each protocol against the embedded server
// through --resolve and --connect-to, with the certificate verified for
// the URL's host: the server's own counters must equal the client's.
func TestRouteEmbedded(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{Hosts: []string{"httpslab.test"}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.HTTPSURL, "https://"))
	tc := clientTLS(t, s.CA.CertPEM)
	resolve := transport.Routes{Resolve: []transport.Resolve{mustResolve(t, "httpslab.test:"+port+":127.0.0.1")}}
	// Port 1 on the URL: nothing listens there, so only the route reaches
	// the server.
	connectTo := transport.Routes{ConnectTo: []transport.ConnectTo{mustConnectTo(t, "httpslab.test:1:127.0.0.1:"+port)}}
	byName := withPort(t, s.HTTPSURL, "httpslab.test", port)
	wrongPort := withPort(t, s.HTTPSURL, "httpslab.test", "1") + "/bytes/100"
	tests := []struct {
		name  string
		proto transport.Protocol
		url   string
		cfg   Config
	}{
		{"h1 resolve", transport.HTTP1, byName + "/bytes/100", Config{Routes: resolve}},
		{"h2 resolve", transport.HTTP2, byName + "/bytes/100", Config{Routes: resolve, Streams: 4}},
		{"h3 resolve", transport.HTTP3, byName + "/bytes/100", Config{Routes: resolve, Streams: 4}},
		{"h1 connect-to", transport.HTTP1, wrongPort, Config{Routes: connectTo}},
		{"h2 connect-to", transport.HTTP2, wrongPort, Config{Routes: connectTo, Streams: 4}},
		{"h3 connect-to", transport.HTTP3, wrongPort, Config{Routes: connectTo, Streams: 4}},
		// The first address refuses; the run falls back to the second and
		// stays there, without an error.
		{"h1 fallback -4", transport.HTTP1, byName + "/bytes/100", Config{Routes: transport.Routes{IPVersion: 4,
			Resolve: []transport.Resolve{mustResolve(t, "httpslab.test:"+port+":[::1],127.0.0.2,127.0.0.1")}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Stats()
			cfg := tt.cfg
			cfg.Targets, cfg.Protocol, cfg.TLS, cfg.Conns, cfg.Requests = []Target{{URL: tt.url}}, tt.proto, tc, 2, 200
			res := mustRun(t, cfg)
			st := s.Stats()
			if got := st.Requests - before.Requests; got != 200 || res.Requests != 200 || res.Bytes != 200*100 {
				t.Errorf("server counted %d requests, client %d with %d bytes; want 200 with 20000 bytes", got, res.Requests, res.Bytes)
			}
			if got := st.Handshakes - before.Handshakes; got != 2 || res.Handshakes != 2 {
				t.Errorf("server counted %d handshakes, client %d; want 2", got, res.Handshakes)
			}
		})
	}
}

// TestRouteKeepsName checks that the route changes only where the
// connections go: a URL host that the certificate does not name fails
// verification even when --resolve sends it to the right server.
func TestRouteKeepsName(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{Hosts: []string{"httpslab.test"}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.HTTPSURL, "https://"))
	for _, proto := range []transport.Protocol{transport.HTTP1, transport.HTTP2, transport.HTTP3} {
		cfg := Config{Targets: []Target{{URL: withPort(t, s.HTTPSURL, "wrong.test", port)}}, Protocol: proto, Conns: 1, Requests: 3,
			TLS: clientTLS(t, s.CA.CertPEM), Routes: transport.Routes{Resolve: []transport.Resolve{mustResolve(t, "wrong.test:"+port+":127.0.0.1")}}}
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: Run: %v", proto, err)
		}
		var msgs []string
		for m := range res.ErrorCounts {
			msgs = append(msgs, m)
		}
		if res.Requests != 0 || res.Errors != 3 || len(msgs) != 1 || !strings.Contains(msgs[0], "wrong.test") {
			t.Errorf("%s: %d requests, %d errors %v; want 3 errors naming wrong.test in the certificate check", proto, res.Requests, res.Errors, msgs)
		}
	}
}

// TestRouteErrors checks that a run with nowhere to connect fails before
// it starts, with a RouteError that keeps the cause.
func TestRouteErrors(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantDNS bool
		want    string
	}{
		{name: "no such host", cfg: Config{Targets: []Target{{URL: "http://nohost.invalid:8080/"}}, Timeout: 5 * time.Second},
			wantDNS: true, want: "connecting to nohost.invalid:8080: "},
		{name: "-6 and an IPv4 URL", cfg: Config{Targets: []Target{{URL: "http://127.0.0.1:8080/"}}, Routes: transport.Routes{IPVersion: 6}},
			want: "connecting to 127.0.0.1:8080: no IPv6 address for 127.0.0.1"},
		{name: "-4 and --resolve to IPv6", cfg: Config{Targets: []Target{{URL: "http://name.test:8080/"}}, Routes: transport.Routes{IPVersion: 4,
			Resolve: []transport.Resolve{mustResolve(t, "name.test:8080:[::1]")}}},
			want: "connecting to name.test:8080: no IPv4 address in --resolve"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), tt.cfg)
			var re *RouteError
			var dns *net.DNSError
			if res != nil || !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) || errors.As(err, &dns) != tt.wantDNS {
				t.Errorf("Run = %v, %v; want a RouteError %q (DNS error: %v)", res, err, tt.want, tt.wantDNS)
			}
		})
	}
}

// TestRouteNginx checks --resolve and --connect-to against nginx for
// HTTP/1.1 and HTTP/2, the count and the connections from its access log.
func TestRouteNginx(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(n.HTTPSURL, "https://"))
	tc := clientTLS(t, n.CA.CertPEM)
	tests := []struct {
		name      string
		proto     transport.Protocol
		url       string
		resolve   string
		connectTo string
		wantProto string
	}{
		{"h1 resolve", transport.HTTP1, withPort(t, n.HTTPSURL, "localhost", port), "localhost:" + port + ":127.0.0.1", "", "HTTP/1.1"},
		{"h2 connect-to", transport.HTTP2, withPort(t, n.HTTPSURL, "localhost", "1"), "", "localhost:1:127.0.0.1:" + port, "HTTP/2.0"},
	}
	logged := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Targets: []Target{{URL: tt.url + "/1k.bin"}}, Protocol: tt.proto, Conns: 3, Requests: 300, TLS: tc}
			if tt.resolve != "" {
				cfg.Routes.Resolve = []transport.Resolve{mustResolve(t, tt.resolve)}
			}
			if tt.connectTo != "" {
				cfg.Routes.ConnectTo = []transport.ConnectTo{mustConnectTo(t, tt.connectTo)}
			}
			res := mustRun(t, cfg)
			log := readLog(t, n, logged+300)[logged:]
			logged += len(log)
			conns := map[int]bool{}
			for _, e := range log {
				conns[e.Conn] = true
				if e.HTTPProtocol != tt.wantProto || e.Status != 200 {
					t.Fatalf("nginx logged %s %d; want %s 200", e.HTTPProtocol, e.Status, tt.wantProto)
				}
			}
			if len(log) != 300 || res.Requests != 300 || len(conns) != 3 || res.Handshakes != 3 {
				t.Errorf("nginx logged %d requests on %d connections, client %d on %d; want 300 on 3", len(log), len(conns), res.Requests, res.Handshakes)
			}
		})
	}
}
