package demo

import (
	"context"
	"time"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// Load is one short load run of the demo, in one connection mode.
type Load struct {
	Name          string        `json:"name"`
	Requests      int64         `json:"requests"`
	Errors        int64         `json:"errors"`
	RequestRate   float64       `json:"requests_per_second"`
	HandshakeRate float64       `json:"handshakes_per_second"`
	Handshakes    int64         `json:"handshakes"`
	Resumed       int64         `json:"resumed"`
	P50           time.Duration `json:"p50_ns"`
	P99           time.Duration `json:"p99_ns"`
	Err           string        `json:"error,omitempty"`
}

// KeepAlive is the name of the load run on kept-alive connections, whose
// handshakes are one per connection.
const KeepAlive = "keep-alive"

// LoadModes are the connection modes the demo loads the server with:
// what keep-alive, full handshakes and resumed handshakes each hold.
var LoadModes = []struct {
	Name string
	Mode transport.ConnMode
}{
	{KeepAlive, transport.KeepAlive},
	{"new connection, full handshake", transport.Fresh},
	{"new connection, resumed", transport.Resumed},
}

// loadConns is the number of connections of each load run.
const loadConns = 4

// runLoad loads the embedded server for d in each connection mode, over
// HTTPS with HTTP/1.1 and a few connections.
func runLoad(ctx context.Context, srv *embedded.Server, d time.Duration) []Load {
	var out []Load
	for _, m := range LoadModes {
		if ctx.Err() != nil {
			break
		}
		cfg := load.Config{
			Targets:  []load.Target{{URL: srv.HTTPSURL + "/"}},
			Conns:    loadConns,
			Duration: d,
			Mode:     m.Mode,
			TLS:      transport.TLS{Trust: srv.Trust()},
		}
		row := Load{Name: m.Name}
		res, err := load.Run(ctx, cfg)
		if err != nil {
			row.Err = err.Error()
			out = append(out, row)
			continue
		}
		row.Requests, row.Errors = res.Requests, res.Errors
		row.RequestRate, row.HandshakeRate = res.RequestRate(), res.HandshakeRate()
		row.Handshakes, row.Resumed = res.Handshakes, res.Resumed
		// The histograms count microseconds.
		row.P50 = time.Duration(res.Latency.Total.ValueAtQuantile(50)) * time.Microsecond
		row.P99 = time.Duration(res.Latency.Total.ValueAtQuantile(99)) * time.Microsecond
		out = append(out, row)
	}
	return out
}
