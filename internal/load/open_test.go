package load

import (
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestOpenModelEndsAtDuration checks that an open-model run against a
// server that cannot keep up ends with its -d: the sends still queued
// when the schedule ends are dropped and counted, not sent after it.
// Here 2 connections hold 10 requests/s of the 50 scheduled; sending the
// queue after -d would take about 4 s more.
func TestOpenModelEndsAtDuration(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, p := range []Protocol{HTTP1, HTTP2} {
		t.Run(p.String(), func(t *testing.T) {
			start := time.Now()
			res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPSURL + "/delay/200ms"}}, Conns: 2, Protocol: p,
				Rate: 50, Duration: time.Second, TLS: clientTLS(t, srv.CA.CertPEM)})
			wall := time.Since(start)
			if wall > 3*time.Second {
				t.Errorf("--rate 50 -d 1s against a server that holds 10/s took %v; want it to end with -d, the last requests in flight included", wall)
			}
			if got := res.Requests + res.Dropped; got != 50 {
				t.Errorf("%d completed + %d dropped = %d; want the 50 scheduled", res.Requests, res.Dropped, got)
			}
			if res.Requests == 0 || res.Dropped == 0 {
				t.Errorf("%d completed, %d dropped; want both", res.Requests, res.Dropped)
			}
		})
	}
}
