package demo

import (
	"context"
	"time"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/transport"
)

// PagePath is the page the demo loads over HTTP/1.1 and HTTP/2: 30 images
// of seed 003's 18.3 kB, enough for HTTP/1.1's six connections to queue,
// few enough for a second behind a link.
const PagePath = "/page/images?n=30&size=18300"

// DefaultPageRounds is the number of measured loads per protocol when
// Config.PageRounds is 0.
const DefaultPageRounds = 2

// pageLoadTimeout bounds each load of the page: the embedded server's
// page loads in milliseconds on loopback and in seconds behind a slow
// link.
const pageLoadTimeout = time.Minute

// runPage loads PagePath over HTTP/1.1 and HTTP/2 with page's engine
// (interleaved rounds after a warm-up round) and returns the result, and
// why it failed when it did.
func runPage(ctx context.Context, srv *embedded.Server, cfg Config) (*page.Result, string) {
	rounds := cfg.PageRounds
	if rounds <= 0 {
		rounds = DefaultPageRounds
	}
	c := page.Compare{
		Load: page.Config{
			URL: srv.HTTPSURL + PagePath, TLS: transport.TLS{Trust: srv.Trust()},
			RequestTimeout: requestTimeout, LoadTimeout: pageLoadTimeout,
		},
		Protocols: []page.Protocol{page.HTTP1, page.HTTP2},
		Rounds:    rounds,
		Seed:      cfg.Seed,
	}
	res, err := c.Run(ctx)
	if err != nil {
		return res, err.Error()
	}
	return res, ""
}
