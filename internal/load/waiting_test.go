package load

import (
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestWaitingPhase checks the Waiting phase (request written to first
// response byte) against a server that answers after a delay: every
// request waits at least that long, on every connection mode and
// protocol, including the HTTP/1.1 writes that return only once the
// answer is there (awaitReply), whose wait began when their bytes went
// out; and no request waits longer than it took in all.
func TestWaitingPhase(t *testing.T) {
	const delay = 40 * time.Millisecond
	s := labtest.StartServer(t, lab.Config{})
	tlsCfg := clientTLS(t, s.CA.CertPEM)
	for _, tt := range []struct {
		name string
		cfg  Config
	}{
		{"h1 keep-alive", Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/40ms"}}, Conns: 2, Requests: 8, TLS: tlsCfg}},
		{"h1 new connections", Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/40ms"}}, Conns: 2, Requests: 4, TLS: tlsCfg, Mode: transport.Fresh}},
		{"h1 plain TCP", Config{Targets: []Target{{URL: s.HTTPURL + "/delay/40ms"}}, Conns: 2, Requests: 6}},
		{"h1 pipelined", Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/40ms"}}, Conns: 1, Pipeline: 3, Requests: 6, TLS: tlsCfg}},
		{"h2", Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/40ms"}}, Conns: 1, Streams: 3, Requests: 6, TLS: tlsCfg, Protocol: transport.HTTP2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, tt.cfg)
			w, total := res.Latency.Waiting, res.Latency.Total
			if w.TotalCount() != tt.cfg.Requests {
				t.Fatalf("%d waiting times for %d requests", w.TotalCount(), tt.cfg.Requests)
			}
			// The histograms hold microseconds; the server's sleep may end a
			// little early by the client's clock, never by a millisecond.
			if min := time.Duration(w.Min()) * time.Microsecond; min < delay-time.Millisecond {
				t.Errorf("shortest wait %v for a server that answers after %v", min, delay)
			}
			if w.Max() > total.Max() || w.Min() > total.Min() {
				t.Errorf("waiting %d-%d µs, longer than the requests took in all (%d-%d µs)", w.Min(), w.Max(), total.Min(), total.Max())
			}
		})
	}
}
