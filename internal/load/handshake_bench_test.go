package load

import (
	"context"
	"os"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// BenchmarkFullHandshake is bench --conn new with its defaults
// (certificate verification on, the default key-exchange groups) against
// nginx with TLS 1.3 and no resumption: one op is one full handshake and
// its request. bench/handshake-cost.sh profiles it (-cpuprofile,
// -benchmem) and breaks its CPU down against the crypto floor that
// BenchmarkCryptoFloor measures. The nginx is a lab one, or the script's
// own at HTTPSLAB_HANDSHAKE_URL, trusted through the CA certificate in the
// file HTTPSLAB_HANDSHAKE_CA (so that it runs pinned to its own core).
func BenchmarkFullHandshake(b *testing.B) {
	url, trust := os.Getenv("HTTPSLAB_HANDSHAKE_URL"), transport.TLS{}
	if url != "" {
		pem, err := os.ReadFile(os.Getenv("HTTPSLAB_HANDSHAKE_CA"))
		if err != nil {
			b.Fatalf("HTTPSLAB_HANDSHAKE_CA: %v", err)
		}
		trust = clientTLS(b, pem)
	} else {
		n := labtest.StartNginx(b, lab.NginxConfig{NoDefaults: true,
			TLSDirectives: "ssl_protocols TLSv1.3; ssl_session_cache off; ssl_session_tickets off;"})
		url, trust = n.HTTPSURL+"/1k.bin", clientTLS(b, n.CA.CertPEM)
	}
	cfg := Config{Conns: 20, Mode: transport.Fresh, Requests: int64(b.N), Targets: []Target{{URL: url}}, TLS: trust}
	b.ReportAllocs()
	b.ResetTimer()
	res, err := Run(context.Background(), cfg)
	if err != nil || res.Errors > 0 {
		b.Fatalf("Run: %v, %v", err, res.ErrorCounts)
	}
	if res.Handshakes != res.Requests || res.Resumed != 0 {
		b.Fatalf("%d handshakes (%d resumed) for %d requests; want a full handshake each", res.Handshakes, res.Resumed, res.Requests)
	}
	cpu := res.CPU.ClientUser + res.CPU.ClientSystem
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(res.Handshakes), "cpu-µs/handshake")
	b.ReportMetric(res.HandshakeRate(), "handshakes/s")
	b.Logf("group=%s retries=%d", transport.GroupName(res.KeyShares.Learned), res.KeyShares.HelloRetries)
}
