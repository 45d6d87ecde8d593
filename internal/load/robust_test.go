package load

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestRunRefusesInjection checks that a method or header that would
// split into extra fields on the wire is refused before any connection,
// on every protocol.
func TestRunRefusesInjection(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	tests := []struct {
		name   string
		target Target
		want   string
	}{
		{"method with CRLF", Target{Method: "GET / HTTP/1.1\r\nX-Evil: 1\r\n\r\nGET", URL: srv.HTTPURL + "/"}, "request method"},
		{"method with space", Target{Method: "GE T", URL: srv.HTTPURL + "/"}, "request method"},
		{"value with CRLF", Target{URL: srv.HTTPURL + "/", Header: http.Header{"X-A": {"a\r\nX-B: b"}}}, "control characters"},
		{"value with LF", Target{URL: srv.HTTPURL + "/", Header: http.Header{"X-A": {"a\nb"}}}, "control characters"},
		{"name with space", Target{URL: srv.HTTPURL + "/", Header: http.Header{"X A": {"a"}}}, "header name"},
	}
	for _, tt := range tests {
		for _, p := range []transport.Protocol{transport.HTTP1, transport.HTTP2} {
			_, err := Run(context.Background(), Config{Targets: []Target{tt.target}, Requests: 1, Protocol: p})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s over %v: Run error = %v; want one about %q", tt.name, p, err, tt.want)
			}
		}
	}
	if got := srv.Stats().Requests; got != 0 {
		t.Errorf("server saw %d requests; want 0", got)
	}
}

// TestFewRequestsManyConns checks that -n below -c runs on -n
// connections and sends exactly -n requests, as the server counts them.
func TestFewRequestsManyConns(t *testing.T) {
	tests := []struct {
		n            int64
		conns, wantC int
		mode         transport.ConnMode
	}{
		{n: 1, conns: 100, wantC: 1},
		{n: 3, conns: 100, wantC: 3},
		{n: 7, conns: 50, wantC: 7, mode: transport.Fresh},
		{n: 5, conns: 5, wantC: 5},
		{n: 20, conns: 4, wantC: 4},
	}
	for _, tt := range tests {
		srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
		res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPSURL + "/"}}, Requests: tt.n, Conns: tt.conns,
			Mode: tt.mode, TLS: clientTLS(t, srv.CA.CertPEM)})
		if res.Config.Conns != tt.wantC || res.Requests != tt.n {
			t.Errorf("-n %d -c %d: ran %d requests on %d connections; want %d on %d",
				tt.n, tt.conns, res.Requests, res.Config.Conns, tt.n, tt.wantC)
		}
		if got := srv.Stats().Requests; got != tt.n {
			t.Errorf("-n %d -c %d: server counted %d requests; want %d", tt.n, tt.conns, got, tt.n)
		}
		if res.Connections > int64(tt.wantC) && tt.mode == transport.KeepAlive {
			t.Errorf("-n %d -c %d: opened %d connections; want at most %d", tt.n, tt.conns, res.Connections, tt.wantC)
		}
		// The report says what ran and what was asked: the result keeps
		// -c as given when -n lowered it.
		wantAsked := 0
		if tt.conns > tt.wantC {
			wantAsked = tt.conns
		}
		if got := res.Config.AskedConns(); got != wantAsked {
			t.Errorf("-n %d -c %d: AskedConns() = %d; want %d", tt.n, tt.conns, got, wantAsked)
		}
	}
}

// TestRunRefusesURL checks the target URLs a run cannot honour: they are
// refused before any connection, naming the problem.
func TestRunRefusesURL(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://127.0.0.1:99999/", "port \"99999\": want 1 to 65535"},
		{"http://127.0.0.1:0/", "port \"0\""},
		{"https://[::1]:65536/", "port \"65536\""},
		{"http://user:secret@127.0.0.1:8080/", "credentials"},
		{"http://user@127.0.0.1:8080/", "credentials"},
		{"ftp://127.0.0.1/", `scheme "ftp" is not http or https`},
		{"https:///path", "no host"},
	}
	for _, tt := range tests {
		_, err := Run(context.Background(), Config{Targets: []Target{{URL: tt.url}}, Requests: 1})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%q) error = %v; want one with %q", tt.url, err, tt.want)
		}
	}
}

// TestOpenModelSpansDuration checks that an open-model run whose last
// send is answered before -d ends still lasts -d, so that its rates are
// the schedule's: 4 sends at 4/s in 1 s is 4/s, not 4 over 0.75 s.
func TestOpenModelSpansDuration(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	start := time.Now()
	res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPURL + "/"}}, Conns: 2, Rate: 4, Duration: time.Second})
	wall := time.Since(start)
	if res.Requests != 4 || res.Elapsed < time.Second || wall < time.Second || res.RequestRate() > 4 {
		t.Errorf("--rate 4 -d 1s: %d requests, elapsed %v (wall %v), %.2f/s; want 4 requests over at least 1s, at most 4/s",
			res.Requests, res.Elapsed, wall, res.RequestRate())
	}
}

// TestPipelineBehindClose checks that pipelined requests behind a
// response after which the server closes (HTTP/1.0 without keep-alive,
// 101) are sent again on a new connection, not counted as failed.
func TestPipelineBehindClose(t *testing.T) {
	for _, resp := range []string{
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n",
	} {
		srv := labtest.NewMisbehaving(t, labtest.Reply(resp))
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: srv.URL()}}, Requests: 12, Conns: 2, Pipeline: 3})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 12 || res.Errors != 0 || srv.Replies() != 12 {
			t.Errorf("%q: %d completed, %d failed %v, server answered %d; want 12, 0, 12",
				resp, res.Requests, res.Errors, res.ErrorCounts, srv.Replies())
		}
	}
}

// TestExactCount checks -n against the server's own request counter
// across protocols, streams, pipelining, per-connection limits and the
// open model.
func TestExactCount(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	tests := []struct {
		name string
		cfg  Config
	}{
		{"h1 pipeline", Config{Requests: 101, Conns: 3, Pipeline: 4}},
		{"h1 one per conn", Config{Requests: 37, Conns: 5, RequestsPerConn: 1}},
		{"h1 resume", Config{Requests: 23, Conns: 4, Mode: transport.Resumed}},
		{"h2 streams", Config{Requests: 203, Conns: 3, Streams: 7, Protocol: transport.HTTP2}},
		{"h2 per conn", Config{Requests: 50, Conns: 2, Streams: 4, RequestsPerConn: 3, Protocol: transport.HTTP2}},
		{"h2 open", Config{Requests: 40, Conns: 2, Streams: 2, Protocol: transport.HTTP2, Rate: 2000}},
		{"h3 streams", Config{Requests: 61, Conns: 2, Streams: 5, Protocol: transport.HTTP3}},
		{"h1 open", Config{Requests: 40, Conns: 2, Rate: 2000}},
	}
	for _, tt := range tests {
		before := srv.Stats().Requests
		cfg := tt.cfg
		cfg.Targets = []Target{{URL: srv.HTTPSURL + "/"}}
		cfg.TLS = clientTLS(t, srv.CA.CertPEM)
		res := mustRun(t, cfg)
		if got := srv.Stats().Requests - before; res.Requests != cfg.Requests || got != cfg.Requests {
			t.Errorf("%s: -n %d completed %d, server counted %d; want %d both", tt.name, cfg.Requests, res.Requests, got, cfg.Requests)
		}
	}
}

// TestH2CAgainstHTTP1KeepOpen sends h2c to a server that answers the
// preface in HTTP/1.1 and keeps the connection open: the requests fail at
// once, saying what the server spoke, not after the timeout.
func TestH2CAgainstHTTP1KeepOpen(t *testing.T) {
	srv := labtest.NewMisbehaving(t, labtest.ReplyAndHold("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: srv.URL()}},
		Requests: 2, Protocol: transport.HTTP2, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var noted bool
	for msg := range res.ErrorCounts {
		noted = noted || strings.Contains(msg, "looked like an HTTP/1.1 header")
	}
	if res.Errors != 2 || !noted || res.Elapsed > 5*time.Second {
		t.Errorf("h2c to HTTP/1.1: %d errors %v after %v; want 2 noting HTTP/1.1, well before the 10s timeout",
			res.Errors, res.ErrorCounts, res.Elapsed)
	}
}

// TestRunInternationalizedHost: a Unicode host is requested by its
// A-label (DNS, SNI, certificate check, Host header), while the caller's
// targets are left as given.
func TestRunInternationalizedHost(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true, Hosts: []string{"xn--bcher-kva.test"}})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.HTTPSURL, "https://"))
	r, err := transport.ParseResolve("bücher.test:" + port + ":127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	targets := []Target{{URL: "https://bücher.test:" + port + "/"}}
	for _, p := range []transport.Protocol{transport.HTTP1, transport.HTTP2} {
		res := mustRun(t, Config{Targets: targets, Requests: 3, Protocol: p, Routes: transport.Routes{Resolve: []transport.Resolve{r}},
			TLS: clientTLS(t, srv.CA.CertPEM)})
		if want := "https://xn--bcher-kva.test:" + port + "/"; res.Requests != 3 || res.Config.Targets[0].URL != want {
			t.Errorf("%v: %d requests to %s; want 3 to %s", p, res.Requests, res.Config.Targets[0].URL, want)
		}
	}
	if got := targets[0].URL; got != "https://bücher.test:"+port+"/" {
		t.Errorf("caller's target changed to %s", got)
	}
}
