package probe

import (
	"context"
	"github.com/httpslab/httpslab/internal/transport"
)

// Plan is a series of requests with one Client: the first in one
// connection mode, the others in another, so that the first connection
// leaves behind the session the next ones resume, or the connection they
// reuse.
type Plan struct {
	First, Rest transport.ConnMode // the zero mode is KeepAlive: say Fresh for new connections
	// Runs is the number of requests, the first included.
	Runs int
}

// Run makes the requests of p. A failure of the first request stops the
// plan (the next would fail the same way); later failures are data and
// the runs go on. It returns every result with the first error, or with
// the context's error when ctx was cancelled; a request cut off by the
// cancellation after the first is no measurement and is left out.
func (c *Client) Run(ctx context.Context, p Plan) ([]*Result, error) {
	var results []*Result
	var first error
	for i := 0; i < p.Runs; i++ {
		mode := p.Rest
		if i == 0 {
			mode = p.First
		}
		res, err := c.Do(ctx, mode)
		if ctx.Err() != nil && err != nil && i > 0 {
			break
		}
		if res != nil {
			results = append(results, res)
		}
		if err != nil && first == nil {
			first = err
		}
		if (err != nil && i == 0) || ctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return results, ctx.Err()
	}
	return results, first
}
