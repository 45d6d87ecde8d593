package load

import (
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestOpenModelEndsAtDuration checks that an open-model run against a
// server that cannot keep up ends with its -d: the sends still queued
// when the schedule ends are dropped and counted, not sent after it.
// Here 2 connections hold 10 requests/s of the 50 scheduled; sending the
// queue after -d would take about 4 s more.
func TestOpenModelEndsAtDuration(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, p := range []transport.Protocol{transport.HTTP1, transport.HTTP2} {
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

// TestOpenModelHugeRate runs --rate 1e8 and the highest rate the pacer
// takes for -d 1s: the runs took 4 s and more than 20 s (the pacer tried
// each overdue request in turn); they must end with -d, every request
// of the schedule sent or dropped, and say what rate -c could hold.
func TestOpenModelHugeRate(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, rate := range []float64{1e8, MaxRate} {
		start := time.Now()
		res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPURL + "/"}}, Rate: rate, Duration: time.Second})
		if wall := time.Since(start); wall > 2500*time.Millisecond {
			t.Errorf("--rate %g -d 1s took %v; want about 1s", rate, wall)
		}
		if got := res.Requests + res.Dropped; float64(got) != rate {
			t.Errorf("--rate %g: %d completed + %d dropped = %d; want the %g scheduled", rate, res.Requests, res.Dropped, got, rate)
		}
		if cp, ok := res.Capacity(); !ok || cp.Rate >= rate || cp.Conns <= res.Config.Conns {
			t.Errorf("--rate %g: capacity %+v, %v; want a rate below it and a -c above %d", rate, cp, ok, res.Config.Conns)
		}
	}
	if _, err := Run(t.Context(), Config{Targets: []Target{{URL: srv.HTTPURL + "/"}}, Rate: 1e12, Duration: time.Second}); err == nil {
		t.Errorf("--rate 1e12: no error; want one saying the pacer's highest rate")
	}
}

// TestOpenModelCapacity runs a rate that -c 4 cannot hold against a
// server that answers in 10 ms: at most 400/s. The capacity says so, and
// the -c that 1000/s needs (at least 10).
func TestOpenModelCapacity(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPURL + "/delay/10ms"}}, Conns: 4, Rate: 1000, Duration: time.Second})
	cp, ok := res.Capacity()
	if !ok || res.Dropped == 0 || cp.Workers != 4 || cp.Rate > 400 || cp.Rate < 200 || cp.Conns < 10 || cp.Conns > 20 {
		t.Errorf("-c 4 --rate 1000 at 10 ms: %d dropped, capacity %+v; want drops, 4 workers, 200 to 400/s, -c 10 to 20", res.Dropped, cp)
	}
}

// TestOpenModelSendRateWithoutAnswers runs the open model against a
// server that never answers: the send rate counts the requests sent, not
// those completed (it said 0.0/s achieved when 10 were sent and none
// completed).
func TestOpenModelSendRateWithoutAnswers(t *testing.T) {
	s := labtest.NewMisbehaving(t, labtest.Silent)
	res, err := Run(t.Context(), Config{Targets: []Target{{URL: s.URL()}}, Conns: 30, Rate: 20, Duration: time.Second,
		Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// A send taken more than expireAfter late after -d is dropped: on a
	// loaded machine the last one may be.
	if res.Requests != 0 || res.Sent+res.Dropped != 20 || res.Errors != res.Sent || res.Sent < 15 || res.SendRate() < 15 || res.SendRate() > 25 {
		t.Errorf("--rate 20 -d 1s to a silent server: %d completed, %d sent, %d dropped, %d failed, send rate %.1f/s; want 0, 20 sent or dropped, all sent failed, about 20/s",
			res.Requests, res.Sent, res.Dropped, res.Errors, res.SendRate())
	}
}
