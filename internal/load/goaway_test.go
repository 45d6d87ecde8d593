package load

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// goAwayRuns are the runs against servers that close connections with
// GOAWAY after 10 requests: the shapes of the issue (-c 1 -m 20 -n 100
// gave 96 completed and 4 failed against nginx; -c 7 -m 200 -n 1234 gave
// 281 and 953), the open model, and x/net's client through net/http.
var goAwayRuns = []Config{
	{Conns: 1, Streams: 20, Requests: 100},
	{Conns: 7, Streams: 200, Requests: 1234},
	{Conns: 2, Streams: 5, Requests: 300, Rate: 3000},
	{Conns: 2, Streams: 5, Requests: 300, libraryH2: true},
}

// TestHTTP2GoAwaySentAgain checks that the streams a server refuses by
// GOAWAY (past its last stream id) are sent again on a new connection and
// are not errors, and that -n stays exact: the server answered exactly n.
func TestHTTP2GoAwaySentAgain(t *testing.T) {
	for _, cfg := range goAwayRuns {
		s := labtest.NewMisbehaving(t, labtest.H2GoAwayAfter(10))
		cfg.Targets, cfg.Protocol = []Target{{URL: s.URL()}}, transport.HTTP2
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != cfg.Requests || res.Errors != 0 || s.Replies() != cfg.Requests {
			t.Errorf("%s: %d completed, %d failed %v, server answered %d; want %d, 0, %d",
				runName(cfg), res.Requests, res.Errors, res.ErrorCounts, s.Replies(), cfg.Requests, cfg.Requests)
		}
	}
}

// TestHTTP2GoAwayNginx runs the same against nginx with keepalive_requests
// 10, whose log must hold each request once.
func TestHTTP2GoAwayNginx(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true, TLSDirectives: "keepalive_requests 10;"})
	logged := 0
	for _, cfg := range goAwayRuns {
		cfg.Targets, cfg.Protocol, cfg.TLS = []Target{{URL: n.HTTPSURL + "/1k.bin"}}, transport.HTTP2, clientTLS(t, n.CA.CertPEM)
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		log := readLog(t, n, logged+int(cfg.Requests))[logged:]
		logged += len(log)
		if res.Requests != cfg.Requests || res.Errors != 0 || int64(len(log)) != cfg.Requests {
			t.Errorf("%s: %d completed, %d failed %v, nginx logged %d; want %d, 0, %d",
				runName(cfg), res.Requests, res.Errors, res.ErrorCounts, len(log), cfg.Requests, cfg.Requests)
		}
	}
}

// TestHTTP2GoAwayEverything runs against a server that refuses every
// stream with GOAWAY at once: the requests fail, counted, after a few
// connections each, and the run ends quickly.
func TestHTTP2GoAwayEverything(t *testing.T) {
	for _, rate := range []float64{0, 1000} {
		s := labtest.NewMisbehaving(t, labtest.H2GoAwayAfter(0))
		start := time.Now()
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.URL()}}, Protocol: transport.HTTP2, Requests: 5, Rate: rate})
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors != 5 || res.Requests != 0 || s.Accepted() > 5*(maxRefused+1) || time.Since(start) > 5*time.Second {
			t.Errorf("rate %g: %d completed, %d failed %v over %d connections in %v; want 5 failed over at most %d, quickly",
				rate, res.Requests, res.Errors, res.ErrorCounts, s.Accepted(), time.Since(start), 5*(maxRefused+1))
		}
	}
}

// runName names a run's shape in failure messages.
func runName(cfg Config) string {
	name := fmt.Sprintf("-c %d -m %d -n %d", cfg.Conns, cfg.Streams, cfg.Requests)
	if cfg.Rate > 0 {
		name += fmt.Sprintf(" --rate %g", cfg.Rate)
	}
	if cfg.libraryH2 {
		name += " (x/net's client)"
	}
	return name
}
