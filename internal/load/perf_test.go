package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// benchRun runs b.N requests of cfg against a lab nginx, for profiling
// the client (go test -bench . -cpuprofile cpu.out).
func benchRun(b *testing.B, cfg Config, ncfg lab.NginxConfig) {
	n := labtest.StartNginx(b, ncfg)
	cfg.Targets = []Target{{URL: n.HTTPSURL + "/1k.bin"}}
	cfg.TLS = clientTLS(b, n.CA.CertPEM)
	cfg.Requests = int64(b.N)
	b.ResetTimer()
	res, err := Run(context.Background(), cfg)
	if err != nil || res.Errors > 0 {
		b.Fatalf("Run: %v, %v", err, res.ErrorCounts)
	}
	cpu := res.CPU.ClientUser + res.CPU.ClientSystem
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(res.Requests), "cpu-µs/req")
	b.ReportMetric(res.RequestRate(), "req/s")
}

func BenchmarkKeepalive(b *testing.B) {
	benchRun(b, Config{Conns: 50}, lab.NginxConfig{})
}

func BenchmarkHTTP2(b *testing.B) {
	benchRun(b, Config{Conns: 10, Streams: 10, Protocol: transport.HTTP2}, lab.NginxConfig{HTTP2: true})
}

// BenchmarkHTTP2Client compares the fast HTTP/2 client, which the closed
// model runs, with x/net's through net/http, which the open model runs,
// on the same nginx and load: the reason the fast client exists.
// go test -run '^$' -bench HTTP2Client -count 5 ./internal/load | benchstat -
func BenchmarkHTTP2Client(b *testing.B) {
	for _, c := range []struct {
		name    string
		library bool
	}{{"fast", false}, {"x-net", true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			benchRun(b, Config{Conns: 10, Streams: 10, Protocol: transport.HTTP2, libraryH2: c.library}, lab.NginxConfig{HTTP2: true})
		})
	}
}

func BenchmarkNewConn(b *testing.B) {
	benchRun(b, Config{Conns: 20, Mode: transport.Fresh}, lab.NginxConfig{})
}

// BenchmarkNewConnX25519 is the full-handshake row of bench/peers.sh:
// X25519 only, with and without certificate verification.
func BenchmarkNewConnX25519(b *testing.B) {
	for _, verify := range []bool{false, true} {
		b.Run(fmt.Sprintf("verify=%v", verify), func(b *testing.B) {
			n := labtest.StartNginx(b, lab.NginxConfig{NoDefaults: true,
				TLSDirectives: "ssl_protocols TLSv1.3; ssl_session_cache off; ssl_session_tickets off;"})
			tc := transport.TLS{Trust: transport.Trust{Insecure: true}, Curves: []tls.CurveID{tls.X25519}}
			if verify {
				tc = clientTLS(b, n.CA.CertPEM)
				tc.Curves = []tls.CurveID{tls.X25519}
			}
			cfg := Config{Conns: 20, Mode: transport.Fresh, Requests: int64(b.N), Targets: []Target{{URL: n.HTTPSURL + "/1k.bin"}}, TLS: tc}
			b.ResetTimer()
			res, err := Run(context.Background(), cfg)
			if err != nil || res.Errors > 0 {
				b.Fatalf("Run: %v, %v", err, res.ErrorCounts)
			}
			cpu := res.CPU.ClientUser + res.CPU.ClientSystem
			b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(res.Requests), "cpu-µs/req")
		})
	}
}
