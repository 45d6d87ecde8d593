package probe

import (
	"context"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestRunPlan: the first request primes, the rest resume or reuse; a
// server that cannot be reached fails the first request and stops the
// plan; a cancelled plan returns the context's error.
func TestRunPlan(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	c := newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: transport.HTTP1, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	for _, tt := range []struct {
		plan Plan
		want func(i int, tl *Timeline) bool
	}{
		{Plan{First: transport.Resumed, Rest: transport.Resumed, Runs: 3}, func(i int, tl *Timeline) bool { return tl.TLS.Resumed == (i > 0) }},
		{Plan{First: transport.Fresh, Rest: transport.KeepAlive, Runs: 3}, func(i int, tl *Timeline) bool { return tl.Reused == (i > 0) }},
	} {
		results, err := c.Run(context.Background(), tt.plan)
		if err != nil || len(results) != 3 {
			t.Fatalf("Run(%+v) = %d results, %v; want 3", tt.plan, len(results), err)
		}
		for i, r := range results {
			if tl := r.Final(); tl == nil || !tt.want(i, tl) {
				t.Errorf("Run(%+v): run %d is not what the plan says: %+v", tt.plan, i, tl)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Run(ctx, Plan{First: transport.Fresh, Rest: transport.Fresh, Runs: 3}); err != context.Canceled {
		t.Errorf("Run with a cancelled context = %v; want context.Canceled", err)
	}
	srv.Close()
	results, err := c.Run(context.Background(), Plan{First: transport.Fresh, Rest: transport.Fresh, Runs: 3})
	if err == nil || len(results) != 1 {
		t.Errorf("Run against a closed server = %d results, %v; want the first failure alone", len(results), err)
	}
}
