package load

import (
	"context"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
)

// TestPipelineServerCloses runs pipelined requests against a server that
// answers 3 requests per connection and then closes it without
// Connection: close, leaving the requests pipelined behind them
// unanswered. They counted as "read: EOF" errors (5,409 in 3 s at
// --pipeline 4); GETs must be sent again on a new connection, exactly -n
// of them answered. A POST may have been processed: it is not sent
// again, and fails saying why.
func TestPipelineServerCloses(t *testing.T) {
	for _, pipeline := range []int{2, 4, 10} {
		s := labtest.NewMisbehaving(t, labtest.CloseMidPipeline(3))
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.URL()}}, Requests: 200, Conns: 2, Pipeline: pipeline})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 200 || res.Errors != 0 || s.Replies() != 200 {
			t.Errorf("--pipeline %d: %d completed, %d failed %v, server answered %d; want 200, 0, 200",
				pipeline, res.Requests, res.Errors, res.ErrorCounts, s.Replies())
		}
	}
	s := labtest.NewMisbehaving(t, labtest.CloseMidPipeline(3))
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.URL(), Body: []byte("x")}}, Requests: 40, Conns: 1, Pipeline: 4})
	if err != nil {
		t.Fatal(err)
	}
	for msg := range res.ErrorCounts {
		if !strings.Contains(msg, "not sent again, as its method is not idempotent") {
			t.Errorf("POST: error %q; want one saying the request was not sent again", msg)
		}
	}
	if res.Requests+res.Errors != 40 || res.Errors == 0 || res.Requests != s.Replies() {
		t.Errorf("POST: %d completed, %d failed, server answered %d; want 40 in all, some failed, the completed answered", res.Requests, res.Errors, s.Replies())
	}
}
