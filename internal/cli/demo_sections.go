package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// demoLoad is one short load run of the demo.
type demoLoad struct {
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

// demoLoadModes are the connection modes the demo loads the server with:
// what keep-alive, full handshakes and resumed handshakes each hold.
var demoLoadModes = []struct {
	name string
	mode load.ConnMode
}{
	{"keep-alive", load.Keepalive},
	{"new connection, full handshake", load.New},
	{"new connection, resumed", load.Resume},
}

// demoLoadConns is the number of connections of each demo load.
const demoLoadConns = 4

// runDemoLoad loads the embedded server for d in each connection mode,
// over HTTPS with HTTP/1.1 and a few connections.
func runDemoLoad(ctx context.Context, srv *lab.Server, d time.Duration) []demoLoad {
	var out []demoLoad
	for _, m := range demoLoadModes {
		if ctx.Err() != nil {
			break
		}
		cfg := load.Config{
			Targets:  []load.Target{{URL: srv.HTTPSURL + "/"}},
			Conns:    demoLoadConns,
			Duration: d,
			Mode:     m.mode,
			TLS:      &tls.Config{RootCAs: srv.CA.Pool()},
		}
		row := demoLoad{Name: m.name}
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

func writeDemoLoad(w io.Writer, rows []demoLoad, d time.Duration) {
	fmt.Fprintf(w, "\nload: %v per mode, HTTPS HTTP/1.1, %d connections (client and server share this machine)\n", d, demoLoadConns)
	fmt.Fprintf(w, "%-32s %12s %14s %10s %10s  %s\n", "mode", "requests/s", "handshakes/s", "p50", "p99", "handshakes")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(w, "%-32s failed: %s\n", r.Name, r.Err)
			continue
		}
		hs := "one per connection"
		if r.Name != demoLoadModes[0].name {
			hs = fmt.Sprintf("%d, %d resumed", r.Handshakes, r.Resumed)
		}
		if r.Errors > 0 {
			hs += fmt.Sprintf("; %d errors", r.Errors)
		}
		fmt.Fprintf(w, "%-32s %12.0f %14.0f %10s %10s  %s\n", r.Name, r.RequestRate, r.HandshakeRate,
			demoMs(float64(r.P50), true), demoMs(float64(r.P99), true), hs)
	}
}

// runDemoAudit audits the embedded server, plain port included.
func runDemoAudit(ctx context.Context, srv *lab.Server) (*tlsscan.Report, error) {
	host, port, err := splitURLHostPort(srv.HTTPSURL)
	if err != nil {
		return nil, err
	}
	_, plain, err := splitURLHostPort(srv.HTTPURL)
	if err != nil {
		return nil, err
	}
	return tlsscan.Run(ctx, tlsscan.Config{Host: host, Port: port, HTTPPort: plain, RootCAs: srv.CA.Pool(),
		LargePath: "/bytes/65536"})
}

func splitURLHostPort(raw string) (string, int, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, fmt.Errorf("parsing %q: %w", raw, err)
	}
	host, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		return "", 0, fmt.Errorf("parsing %q: %w", raw, err)
	}
	port, err := strconv.Atoi(p)
	return host, port, err
}

// writeDemoAudit prints the audit in a few lines: the counts per
// category and one line per finding; 'httpslab audit' prints the rest.
func writeDemoAudit(w io.Writer, rep *tlsscan.Report, err error) {
	if err != nil {
		fmt.Fprintf(w, "\naudit: failed: %v\n", err)
		return
	}
	counts := map[tlsscan.Category]int{}
	for _, f := range rep.Findings {
		counts[f.Category]++
	}
	fmt.Fprintf(w, "\naudit of the embedded server (%s): %d speed, %d safety, %d information findings\n",
		rep.Elapsed.Round(time.Millisecond), counts[tlsscan.Speed], counts[tlsscan.Safety], counts[tlsscan.About])
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "  %-7s %-8s %-22s %s\n", f.Category, "["+f.Severity.String()+"]", f.ID, f.Title)
	}
}
