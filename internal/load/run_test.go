package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// clientTLS trusts the lab CA, as --cacert does.
func clientTLS(t testing.TB, caPEM []byte) transport.TLS {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("lab CA: no certificate")
	}
	return transport.TLS{Trust: transport.Trust{RootCAs: pool}}
}

// readLog reads nginx's access log once it has want lines (nginx writes
// a line just after the response, so the last lines may land after the
// client has finished), and a surplus line too if one comes within 50 ms.
func readLog(t *testing.T, n *lab.Nginx, want int) []lab.AccessEntry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	log, err := labtest.WaitAccessLog(ctx, n, want)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	surplus, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	if more, _ := labtest.WaitAccessLog(surplus, n, len(log)+1); len(more) > len(log) {
		log = more
	}
	return log
}

func mustRun(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Errors != 0 {
		t.Fatalf("Run: %d errors: %v", res.Errors, res.ErrorCounts)
	}
	return res
}

// TestModesNginx checks from nginx's access log that each connection
// mode does what it says: how many connections carried the requests and
// whether their TLS sessions were reused.
func TestModesNginx(t *testing.T) {
	tests := []struct {
		mode      transport.ConnMode
		perConn   int
		pipeline  int
		n         int64
		wantConns int
		slack     int
		tls12     bool
		wantReuse func(reused, conns int) bool
	}{
		{mode: transport.KeepAlive, n: 1000, wantConns: 4, wantReuse: func(r, _ int) bool { return r == 0 }},
		{mode: transport.KeepAlive, pipeline: 4, n: 1001, wantConns: 4, wantReuse: func(r, _ int) bool { return r == 0 }},
		// A worker's last connection may carry fewer than 10: up to 4 more.
		{mode: transport.KeepAlive, perConn: 10, n: 200, wantConns: 20, slack: 4, wantReuse: func(r, _ int) bool { return r == 0 }},
		{mode: transport.Fresh, n: 150, wantConns: 150, wantReuse: func(r, _ int) bool { return r == 0 }},
		// Each of the 4 workers may start before any ticket exists.
		{mode: transport.Resumed, n: 150, wantConns: 150, wantReuse: func(r, c int) bool { return r >= c-4 }},
		{mode: transport.Resumed, perConn: 5, n: 150, wantConns: 30, slack: 4, wantReuse: func(r, c int) bool { return r >= c-4 }},
		// TLS 1.2: no session ID may be reused in New mode; Resume resumes.
		{mode: transport.Fresh, tls12: true, n: 100, wantConns: 100, wantReuse: func(r, _ int) bool { return r == 0 }},
		{mode: transport.Resumed, tls12: true, n: 100, wantConns: 100, wantReuse: func(r, c int) bool { return r >= c-4 }},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			n := labtest.StartNginx(t, lab.NginxConfig{})
			tc := clientTLS(t, n.CA.CertPEM)
			wantProto := "TLSv1.3"
			if tt.tls12 {
				tc.Max, wantProto = tls.VersionTLS12, "TLSv1.2"
			}
			res := mustRun(t, Config{Targets: []Target{{URL: n.HTTPSURL + "/1k.bin"}}, Conns: 4, Requests: tt.n,
				Mode: tt.mode, RequestsPerConn: tt.perConn, Pipeline: tt.pipeline, TLS: tc, ServerPIDs: []int{n.PID()}})
			log := readLog(t, n, int(tt.n))
			conns, reusedConns := map[int]bool{}, 0
			for _, e := range log {
				if e.TLSProtocol != wantProto {
					t.Fatalf("request over %s; want %s", e.TLSProtocol, wantProto)
				}
				if tt.perConn > 0 && e.ConnRequest > tt.perConn {
					t.Errorf("request %d on connection %d; want at most %d per connection", e.ConnRequest, e.Conn, tt.perConn)
				}
				if !conns[e.Conn] && e.Reused {
					reusedConns++
				}
				conns[e.Conn] = true
			}
			if int64(len(log)) != tt.n || res.Requests != tt.n || res.Status[200] != tt.n {
				t.Errorf("access log has %d requests, client counted %d (%d with 200); want %d", len(log), res.Requests, res.Status[200], tt.n)
			}
			if len(conns) < tt.wantConns || len(conns) > tt.wantConns+tt.slack || res.Handshakes != int64(len(conns)) {
				t.Errorf("nginx saw %d connections, client %d handshakes; want %d (+%d)", len(conns), res.Handshakes, tt.wantConns, tt.slack)
			}
			if !tt.wantReuse(reusedConns, len(conns)) || res.Resumed != int64(reusedConns) {
				t.Errorf("nginx saw %d of %d connections resumed, client %d", reusedConns, len(conns), res.Resumed)
			}
			if !res.CPU.ServerMeasured {
				t.Errorf("server CPU not measured: %s", res.CPU.ServerError)
			}
			// A resumed TLS 1.2 handshake exchanges no key: its row has no
			// group (it showed the first connection's X25519 and shared
			// the full handshakes' row).
			for _, row := range res.TLS {
				if row.Full > 0 && row.Curve == 0 || row.Version == tls.VersionTLS12 && row.Resumed > 0 && (row.Curve != 0 || row.Full > 0) {
					t.Errorf("TLS row %+v; want a group on full handshakes and on TLS 1.3 resumptions only", row)
				}
			}
		})
	}
}

// TestHTTP2Streams checks that -c connections carry -m streams each, on
// the fast client (closed model) and on net/http's (open model), and that
// --conn new opens a connection per request.
func TestHTTP2Streams(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		want      int64
		wantConns int
	}{
		{"closed", Config{Conns: 3, Streams: 5, Requests: 600}, 600, 3},
		{"open", Config{Conns: 3, Streams: 5, Rate: 1000, Requests: 300}, 300, 3},
		{"new", Config{Conns: 3, Streams: 5, Mode: transport.Fresh, Requests: 60}, 60, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
			cfg := tt.cfg
			cfg.Targets = []Target{{URL: n.HTTPSURL + "/1k.bin"}, {URL: n.HTTPSURL + "/index.html"}}
			cfg.Protocol, cfg.TLS = transport.HTTP2, clientTLS(t, n.CA.CertPEM)
			res := mustRun(t, cfg)
			log := readLog(t, n, int(tt.want))
			conns := map[int]bool{}
			uris := map[string]int{}
			for _, e := range log {
				conns[e.Conn] = true
				uris[e.URI]++
				if e.HTTPProtocol != "HTTP/2.0" {
					t.Fatalf("request over %s; want HTTP/2.0", e.HTTPProtocol)
				}
			}
			if int64(len(log)) != tt.want || res.Requests != tt.want || len(conns) != tt.wantConns {
				t.Errorf("access log: %d requests on %d connections, client counted %d; want %d on %d", len(log), len(conns), res.Requests, tt.want, tt.wantConns)
			}
			if uris["/1k.bin"] < int(tt.want)/3 || uris["/index.html"] < int(tt.want)/3 {
				t.Errorf("targets requested %v; want both in rotation", uris)
			}
			if res.Bytes < int64(uris["/1k.bin"])*1024 {
				t.Errorf("client read %d body bytes; want at least %d", res.Bytes, uris["/1k.bin"]*1024)
			}
		})
	}
}

// TestHTTP3 checks HTTP/3 against the embedded server.
func TestHTTP3(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPSURL + "/bytes/100"}}, Protocol: transport.HTTP3, Conns: 2, Streams: 4,
		Requests: 300, TLS: clientTLS(t, s.CA.CertPEM)})
	st := s.Stats()
	if st.Requests != 300 || res.Requests != 300 || res.Bytes != 300*100 {
		t.Errorf("server counted %d requests, client %d with %d bytes; want 300, 30000 bytes", st.Requests, res.Requests, res.Bytes)
	}
	if st.Handshakes != 2 || res.Handshakes != 2 || res.TLS[0].Version != tls.VersionTLS13 {
		t.Errorf("server counted %d handshakes, client %d (%v); want 2 over TLS 1.3", st.Handshakes, res.Handshakes, res.TLS)
	}
}

// TestKeepaliveEmbeddedExact checks the exact count and the server's own
// counters for plain HTTP and HTTPS.
func TestKeepaliveEmbeddedExact(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, Conns: 7, Requests: 1234, TLS: clientTLS(t, s.CA.CertPEM)})
	res2 := mustRun(t, Config{Targets: []Target{{URL: s.HTTPURL + "/bytes/10", Method: "POST", Body: []byte("abc")}}, Conns: 3, Requests: 100})
	st := s.Stats()
	if st.Requests != 1334 || res.Requests != 1234 || res2.Requests != 100 || res2.Status[200] != 100 {
		t.Errorf("server counted %d requests, client %d + %d; want 1334", st.Requests, res.Requests, res2.Requests)
	}
	if st.Handshakes != 7 || st.Resumed != 0 || res.Handshakes != 7 {
		t.Errorf("server counted %d handshakes (%d resumed), client %d; want 7 full", st.Handshakes, st.Resumed, res.Handshakes)
	}
}

// TestOpenModelRate checks that the open model holds its rate.
func TestOpenModelRate(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, Conns: 4, Rate: 400, Duration: 1500 * time.Millisecond,
		TLS: clientTLS(t, s.CA.CertPEM)})
	if res.Requests != 600 {
		t.Errorf("open model sent %d requests in 1.5s at 400/s (%d dropped, largest lag %v); want 600", res.Requests, res.Dropped, res.MaxLag)
	}
	// The rate from the schedule's start, not from the first send: on a
	// busy machine the connections' handshakes can hold the first sends
	// back (96 ms once, under -race at load average 8), and the pacer
	// catching up on them then shows as a higher rate between the first
	// send and the last.
	if got := float64(res.Sent-1) / res.LastSend.Seconds(); got < 400*0.98 || got > 400*1.02 {
		t.Errorf("sends went out at %.1f/s from the start (first %v, last %v); want 400/s within 2%%", got, res.FirstSend, res.LastSend)
	}
	// The last request is due at 1.4975 s; the run ends when it completes.
	if res.Elapsed < 1490*time.Millisecond || res.Elapsed > 3*time.Second {
		t.Errorf("run took %v; want about 1.5s", res.Elapsed)
	}
}

// TestCoordinatedOmission stalls the server on one request: the requests
// scheduled behind it must show the wait from their intended start,
// while their service time stays short.
func TestCoordinatedOmission(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	targets := []Target{{URL: s.HTTPSURL + "/delay/300ms"}}
	for range 9 {
		targets = append(targets, Target{URL: s.HTTPSURL + "/"})
	}
	res := mustRun(t, Config{Targets: targets, Conns: 1, Rate: 50, Requests: 10, TLS: clientTLS(t, s.CA.CertPEM)})
	total, service := res.Latency.Total, res.Latency.Service
	// Request i is due at 20i ms and sent after the stall ends (~300 ms).
	if p50 := total.ValueAtQuantile(50); p50 < 150e3 {
		t.Errorf("corrected p50 = %v; want over 150ms (the stall)", time.Duration(p50)*time.Microsecond)
	}
	if p50 := service.ValueAtQuantile(50); p50 > 100e3 {
		t.Errorf("service p50 = %v; want well under the stall", time.Duration(p50)*time.Microsecond)
	}
	if res.Late < 8 || res.MaxLag < 200*time.Millisecond {
		t.Errorf("late sends %d, max lag %v; want at least 8 and 200ms", res.Late, res.MaxLag)
	}
}

// TestInterrupt checks that cancelling stops a long run at once with a
// partial result.
func TestInterrupt(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/5s"}}, Conns: 3, Duration: time.Minute,
		TLS: clientTLS(t, s.CA.CertPEM)})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second || !res.Interrupted || res.Errors != 0 {
		t.Errorf("interrupted run took %v, interrupted=%v, errors=%d; want prompt, true, 0", took, res.Interrupted, res.Errors)
	}
}

// TestErrorsAreData checks that failures are counted, not fatal.
func TestErrorsAreData(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, Conns: 2, Requests: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 4 || res.Requests != 0 || len(res.ErrorCounts) != 1 {
		t.Errorf("unverifiable server: %d errors, %d requests, messages %v; want 4, 0, one message", res.Errors, res.Requests, res.ErrorCounts)
	}
	res, err = Run(context.Background(), Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/2s"}}, Conns: 2, Requests: 2,
		Timeout: 100 * time.Millisecond, TLS: clientTLS(t, s.CA.CertPEM)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 2 || res.ErrorCounts["timeout"] != 2 {
		t.Errorf("timeouts: %d errors %v; want 2 timeouts", res.Errors, res.ErrorCounts)
	}
}

// TestHTTP2EmbeddedStatus checks the fast HTTP/2 client against Go's
// server, which honours the header table size of 0, with statuses that
// are not in the HPACK static table.
func TestHTTP2EmbeddedStatus(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	targets := []Target{{URL: s.HTTPSURL + "/status/418"}, {URL: s.HTTPSURL + "/status/404"}, {URL: s.HTTPSURL + "/bytes/2000"}}
	res := mustRun(t, Config{Targets: targets, Protocol: transport.HTTP2, Conns: 1, Streams: 4, Requests: 300, TLS: clientTLS(t, s.CA.CertPEM)})
	want := map[int]int64{418: 100, 404: 100, 200: 100}
	for code, n := range want {
		if res.Status[code] != n {
			t.Errorf("status %d counted %d times; want %d (all: %v)", code, res.Status[code], n, res.Status)
		}
	}
	if st := s.Stats(); st.Requests != 300 {
		t.Errorf("server counted %d requests; want 300", st.Requests)
	}
}

// TestServerEndsConnections has nginx close each connection after 50
// requests, as its keepalive_requests does (1000 by default): pipelined
// HTTP/1.1 requests it did not answer and HTTP/2 streams a GOAWAY refused
// are sent again on a new connection, not counted as errors.
func TestServerEndsConnections(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"h1 keep-alive", Config{Conns: 3}},
		{"h1 pipeline", Config{Conns: 3, Pipeline: 8}},
		{"h2", Config{Conns: 2, Streams: 10, Protocol: transport.HTTP2}},
		{"h2 open model", Config{Conns: 2, Streams: 5, Protocol: transport.HTTP2, Rate: 2000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true, TLSDirectives: "keepalive_requests 50;"})
			cfg := tt.cfg
			cfg.Targets = []Target{{URL: n.HTTPSURL + "/1k.bin"}}
			cfg.TLS, cfg.Requests = clientTLS(t, n.CA.CertPEM), 1000
			res := mustRun(t, cfg)
			log := readLog(t, n, 1000)
			conns := map[int]bool{}
			for _, e := range log {
				conns[e.Conn] = true
			}
			if len(log) != 1000 || res.Requests != 1000 || len(conns) < 20 {
				t.Errorf("access log: %d requests on %d connections, client %d; want 1000 on at least 20", len(log), len(conns), res.Requests)
			}
		})
	}
}

// TestIdleConnectionClosed has nginx close idle keep-alive connections
// after 100 ms while the open model sends every 250 ms: each request finds
// its connection closed and is sent again on a new one, without an error.
func TestIdleConnectionClosed(t *testing.T) {
	t.Parallel()
	n := labtest.StartNginx(t, lab.NginxConfig{TLSDirectives: "keepalive_timeout 100ms;"})
	res := mustRun(t, Config{Targets: []Target{{URL: n.HTTPSURL + "/1k.bin"}}, Conns: 1, Rate: 4, Requests: 4,
		TLS: clientTLS(t, n.CA.CertPEM)})
	log := readLog(t, n, 4)
	if len(log) != 4 || res.Requests != 4 || res.Connections != 4 {
		t.Errorf("access log %d requests, client %d on %d connections; want 4 on 4", len(log), res.Requests, res.Connections)
	}
}

// TestStreamsConcurrent checks that -m streams really share a connection
// at the same time: 10 requests that each take 200 ms on one connection
// with 5 streams take two rounds, not ten.
func TestStreamsConcurrent(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	for _, p := range []transport.Protocol{transport.HTTP2, transport.HTTP3} {
		t.Run(p.String(), func(t *testing.T) {
			res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/200ms"}}, Protocol: p, Conns: 1, Streams: 5,
				Requests: 10, TLS: clientTLS(t, s.CA.CertPEM)})
			if res.Connections != 1 || res.Elapsed < 400*time.Millisecond || res.Elapsed > 1500*time.Millisecond {
				t.Errorf("10 requests of 200ms on %d connection(s) x 5 streams took %v; want 1 connection, about 400ms", res.Connections, res.Elapsed)
			}
		})
	}
}
