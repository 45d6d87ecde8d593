package load

import (
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestBodyBytes checks that every protocol and client path counts the
// same thing in Result.Bytes: response body bytes, without headers or
// framing (chunked bodies: TestReadResponse).
func TestBodyBytes(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	const requests = 20
	tests := []struct {
		name string
		url  string
		size int64
		cfg  Config
	}{
		{"h1 embedded", s.HTTPSURL + "/bytes/1000", 1000, Config{}},
		{"h1 embedded 20000", s.HTTPSURL + "/bytes/20000", 20000, Config{}},
		{"h1 plain", s.HTTPURL + "/bytes/1000", 1000, Config{}},
		{"h1 nginx", n.HTTPSURL + "/1k.bin", 1024, Config{}},
		{"h2 fast", s.HTTPSURL + "/bytes/20000", 20000, Config{Protocol: transport.HTTP2}},
		{"h2 fast nginx", n.HTTPSURL + "/16k.bin", 16 << 10, Config{Protocol: transport.HTTP2}},
		{"h2 net/http", s.HTTPSURL + "/bytes/20000", 20000, Config{Protocol: transport.HTTP2, Rate: 500}},
		{"h3", s.HTTPSURL + "/bytes/20000", 20000, Config{Protocol: transport.HTTP3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			ca := s.CA.CertPEM
			if tt.url[:len(n.HTTPSURL)] == n.HTTPSURL {
				ca = n.CA.CertPEM
			}
			cfg.Targets = []Target{{URL: tt.url}}
			cfg.Conns, cfg.Requests, cfg.TLS = 2, requests, clientTLS(t, ca)
			res := mustRun(t, cfg)
			if want := requests * tt.size; res.Bytes != want || res.Requests != requests {
				t.Errorf("%d requests read %d bytes; want %d requests, %d body bytes", res.Requests, res.Bytes, requests, want)
			}
		})
	}
}
