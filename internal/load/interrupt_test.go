package load

import (
	"context"
	"math"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestSourceHaltsOnCancel checks that the source stops handing out
// tickets as soon as the run's context is cancelled, before the run's
// own function for the interrupt has had a chance to run.
func TestSourceHaltsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := &source{now: func() int64 { return 0 }, ctx: ctx}
	if _, ok := s.next(); !ok {
		t.Fatal("next() before the cancel = false; want a ticket")
	}
	cancel()
	if _, ok := s.next(); ok {
		t.Error("next() after the cancel = true; want false")
	}
	if _, ok := s.tryNext(); ok {
		t.Error("tryNext() after the cancel = true; want false")
	}
	if !s.halted() {
		t.Error("halted() after the cancel = false; want true")
	}
}

// TestInterruptCountsNoErrors interrupts runs that open a connection
// per request: the requests and dials cut short by the interrupt are not
// failures of the server, so a healthy server shows none.
func TestInterruptCountsNoErrors(t *testing.T) {
	// The server interrupts each run as its 30th request comes in.
	var served atomic.Int64
	var interrupt atomic.Pointer[context.CancelFunc]
	h := lab.Handler()
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 30 {
			(*interrupt.Load())()
		}
		h.ServeHTTP(w, r)
	})})
	for _, p := range []transport.Protocol{transport.HTTP1, transport.HTTP2} {
		for range 3 {
			ctx, cancel := context.WithCancel(context.Background())
			served.Store(0)
			interrupt.Store(&cancel)
			res, err := Run(ctx, Config{Targets: []Target{{URL: srv.HTTPSURL + "/"}}, Conns: 8, Mode: transport.Fresh,
				Protocol: p, Duration: 10 * time.Second, TLS: clientTLS(t, srv.CA.CertPEM)})
			cancel()
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !res.Interrupted || res.Errors != 0 || res.DialErrors != 0 {
				t.Errorf("%v: interrupted %v with %d errors, %d failed dials %v; want interrupted with none",
					p, res.Interrupted, res.Errors, res.DialErrors, res.ErrorCounts)
			}
		}
	}
}

// TestInterruptStalled interrupts a run against a server that never
// answers: the partial result lasts until the interrupt (not 0 s), has
// no errors, no responses, and its rates are numbers (neither NaN nor
// Inf, which the report and JSON would carry).
func TestInterruptStalled(t *testing.T) {
	u := labtest.NewMisbehaving(t, labtest.Silent).URL()
	for _, p := range []transport.Protocol{transport.HTTP1, transport.HTTP2} {
		before := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		res, err := Run(ctx, Config{Targets: []Target{{URL: u}}, Conns: 4, Protocol: p, Duration: 10 * time.Second})
		cancel()
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		// The run's clock starts after its setup, which on a busy machine
		// may take most of the timeout: no lower bound but "not 0 s".
		if wall := time.Since(before); !res.Interrupted || res.Elapsed <= 0 || res.Elapsed > wall || res.Errors != 0 {
			t.Errorf("%v: interrupted %v after %v (wall %v) with %d errors; want interrupted after 0 < elapsed <= wall with none",
				p, res.Interrupted, res.Elapsed, wall, res.Errors)
		}
		for name, v := range map[string]float64{"requests/s": res.RequestRate(), "handshakes/s": res.HandshakeRate(),
			"send rate": res.SendRate(), "error rate": res.ErrorRate()} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%v: %s = %v; want a number", p, name, v)
			}
		}
		if len(res.Status) != 0 || res.Latency.Total.TotalCount() != 0 {
			t.Errorf("%v: status codes %v, %d latencies; want none", p, res.Status, res.Latency.Total.TotalCount())
		}
	}
}
