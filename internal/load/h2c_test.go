package load

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestH2C runs HTTP/2 with prior knowledge on nginx's plain port: the
// fast client (closed and open model), x/net's through net/http and a connection
// per request. nginx's log must show HTTP/2 over a connection without
// TLS, request for request.
func TestH2C(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		want      int64
		wantConns int
	}{
		{"closed", Config{Conns: 2, Streams: 5, Requests: 400}, 400, 2},
		{"open", Config{Conns: 2, Streams: 5, Rate: 1000, Requests: 200}, 200, 2},
		{"net/http", Config{Conns: 2, Streams: 5, Requests: 200, libraryH2: true}, 200, 2},
		{"new", Config{Conns: 2, Streams: 2, Mode: transport.Fresh, Requests: 40}, 40, 40},
	}
	n := labtest.StartNginx(t, lab.NginxConfig{PlainHTTP2: true})
	logged := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Targets, cfg.Protocol = []Target{{URL: n.HTTPURL + "/1k.bin"}}, transport.HTTP2
			res := mustRun(t, cfg)
			log := readLog(t, n, logged+int(tt.want))[logged:]
			logged += len(log)
			conns := map[int]bool{}
			for _, e := range log {
				conns[e.Conn] = true
				if e.HTTPProtocol != "HTTP/2.0" || e.TLSProtocol != "-" || e.Status != 200 {
					t.Fatalf("nginx logged %s over TLS %q, status %d; want HTTP/2.0 without TLS (-), 200", e.HTTPProtocol, e.TLSProtocol, e.Status)
				}
			}
			if int64(len(log)) != tt.want || res.Requests != tt.want || len(conns) != tt.wantConns || res.Connections != int64(tt.wantConns) {
				t.Errorf("nginx logged %d requests on %d connections, client %d on %d; want %d on %d",
					len(log), len(conns), res.Requests, res.Connections, tt.want, tt.wantConns)
			}
			if res.Handshakes != 0 || res.Bytes != tt.want*1024 {
				t.Errorf("client counted %d TLS handshakes, %d bytes; want none, %d bytes", res.Handshakes, res.Bytes, tt.want*1024)
			}
			if got := res.Config.ProtocolName(); got != "HTTP/2 (h2c: cleartext, prior knowledge)" {
				t.Errorf("protocol named %q; want h2c named", got)
			}
		})
	}
}

// TestH2CRoute sends h2c through --connect-to from a port nothing listens
// on to nginx's plain port.
func TestH2CRoute(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{PlainHTTP2: true})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(n.HTTPURL, "http://"))
	ct, err := transport.ParseConnectTo("localhost:1:127.0.0.1:" + port)
	if err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, Config{Targets: []Target{{URL: "http://localhost:1/1k.bin"}}, Protocol: transport.HTTP2, Conns: 2, Streams: 3,
		Requests: 150, Routes: transport.Routes{ConnectTo: []transport.ConnectTo{ct}}})
	log := readLog(t, n, 150)
	if len(log) != 150 || res.Requests != 150 || log[0].HTTPProtocol != "HTTP/2.0" {
		t.Errorf("nginx logged %d requests (first %+v), client %d; want 150 over HTTP/2.0", len(log), log[0], res.Requests)
	}
}

// TestH2CRefused checks that h2c against an HTTP/1.1-only port (nginx's
// plain listener without http2) fails each request with an error rather
// than hanging.
func TestH2CRefused(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	for _, rate := range []float64{0, 100} {
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: n.HTTPURL + "/1k.bin"}}, Protocol: transport.HTTP2, Conns: 1,
			Requests: 3, Rate: rate, Timeout: 5e9})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Requests != 0 || res.Errors != 3 {
			t.Errorf("rate %g: %d requests, %d errors %v; want 3 errors", rate, res.Requests, res.Errors, res.ErrorCounts)
		}
	}
}

// TestH2CEmbedded runs h2c against the embedded server's plain port,
// which answers HTTP/2 to a client that starts with its preface: the
// server counts every request.
func TestH2CEmbedded(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	before := s.Stats().Requests
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPURL + "/bytes/10"}}, Protocol: transport.HTTP2, Conns: 2, Streams: 4, Requests: 200})
	if got := s.Stats().Requests - before; res.Requests != 200 || got != 200 || res.Connections != 2 || res.Handshakes != 0 {
		t.Errorf("client %d requests on %d connections (%d TLS handshakes), server counted %d; want 200 on 2, none, 200",
			res.Requests, res.Connections, res.Handshakes, got)
	}
}
