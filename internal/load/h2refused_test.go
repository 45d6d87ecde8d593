package load

import (
	"context"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestHTTP2RefusedStreamsSentAgain runs more streams than nginx allows
// (128) on one connection: the streams that reach nginx before the client
// has its SETTINGS are refused with REFUSED_STREAM, unprocessed, and must
// be sent again. They counted as failed requests: 44 of 3000 at -m 300.
// The result keeps how many streams nginx allowed, for the report.
func TestHTTP2RefusedStreamsSentAgain(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	const runs, each = 4, 1000
	for range runs {
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: n.HTTPSURL + "/1k.bin"}}, Protocol: transport.HTTP2,
			Conns: 1, Streams: 300, Requests: each, TLS: clientTLS(t, n.CA.CertPEM)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != each || res.Errors != 0 {
			t.Errorf("-m 300 against nginx's 128 streams: %d completed, %d failed %v; want %d, 0", res.Requests, res.Errors, res.ErrorCounts, each)
		}
		// The report's Load line said "x 300 streams" where nginx
		// allowed 128: the result keeps what the server allowed.
		if res.ServerStreams == nil || *res.ServerStreams != 128 {
			t.Errorf("server streams %v; want 128", res.ServerStreams)
		}
	}
	if log := readLog(t, n, runs*each); len(log) != runs*each {
		t.Errorf("nginx logged %d requests; want %d", len(log), runs*each)
	}
}
