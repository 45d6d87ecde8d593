package load

import (
	"context"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestSourceHaltsOnCancel checks that the source stops handing out
// tickets as soon as the run's context is cancelled, before the
// function that sets the stopped flag has had a chance to run.
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
	srv := lab.StartTestServer(t, lab.Config{NoHTTP3: true})
	for _, p := range []Protocol{HTTP1, HTTP2} {
		for range 3 {
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				deadline := time.Now().Add(5 * time.Second)
				for srv.Stats().Requests < 30 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			res, err := Run(ctx, Config{Targets: []Target{{URL: srv.HTTPSURL + "/"}}, Conns: 8, Mode: New,
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
