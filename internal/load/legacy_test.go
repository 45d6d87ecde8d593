package load

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestLegacyTLS loads a server that still accepts TLS 1.0 and 1.1 with a
// maximum below 1.2 over HTTP/1.1, and refuses HTTP/2 and HTTP/3 there
// before the run: neither exists on those versions.
func TestLegacyTLS(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{MinVersion: tls.VersionTLS10, NoHTTP3: true})
	tc := clientTLS(t, s.CA.CertPEM)
	tc.Min, tc.Max = tls.VersionTLS10, tls.VersionTLS11
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, TLS: tc, Mode: transport.Fresh, Conns: 2, Requests: 20})
	if len(res.TLS) != 1 || res.TLS[0].Version != tls.VersionTLS11 || res.TLS[0].Full != 20 || res.Requests != 20 {
		t.Errorf("got %d requests over %+v; want 20, all full TLS 1.1 handshakes", res.Requests, res.TLS)
	}
	for _, p := range []struct {
		proto transport.Protocol
		want  string
	}{{transport.HTTP2, "HTTP/2 needs TLS 1.2 or later"}, {transport.HTTP3, "HTTP/3 runs on TLS 1.3 only"}} {
		_, err := Run(context.Background(), Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, TLS: tc, Protocol: p.proto, Requests: 1})
		if err == nil || !strings.Contains(err.Error(), p.want) {
			t.Errorf("%s with TLS 1.1 at most: error %v; want %q", p.proto, err, p.want)
		}
	}
}
