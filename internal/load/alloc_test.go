package load

import (
	"bytes"
	"context"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http2/hpack"
)

// The load clients are hand-written so that a request costs the client
// as little as it can: these tests pin the allocation counts that the
// code's comments and the README claim, so that a change that breaks
// them fails here rather than showing up as noise in a benchmark.

// TestParserAllocs: the HTTP/1.1 response parser allocates nothing on the
// success path (h1parse.go), whatever the framing.
func TestParserAllocs(t *testing.T) {
	for _, resp := range []string{
		"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/octet-stream\r\nContent-Length: 1024\r\n\r\n" + string(make([]byte, 1024)),
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + string(make([]byte, 1024)) + "\r\n0\r\nX-Trailer: 1\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n",
	} {
		p := newH1Reader(h1ReadBuffer, 1<<20)
		data := []byte(resp)
		r := bytes.NewReader(nil)
		allocs := testing.AllocsPerRun(100, func() {
			r.Reset(data)
			p.br.Reset(r)
			if _, err := p.read(false); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("read(%.40q...) allocated %v times; want 0", resp, allocs)
		}
	}
}

// TestSkimStatusAllocs: the fast HTTP/2 client reads a response's status
// from its header block without decoding the rest, allocating nothing.
func TestSkimStatusAllocs(t *testing.T) {
	block := encodeBlock(hpack.HeaderField{Name: ":status", Value: "200"}, hpack.HeaderField{Name: "server", Value: "nginx/1.22.1"},
		hpack.HeaderField{Name: "date", Value: "Tue, 24 Nov 2026 03:40:00 GMT"}, hpack.HeaderField{Name: "content-length", Value: "1024"},
		hpack.HeaderField{Name: "etag", Value: `"6569a1b2-400"`})
	allocs := testing.AllocsPerRun(100, func() {
		if status, _, err := skimStatus(block); err != nil || status != 200 {
			t.Fatalf("skimStatus = %d, %v", status, err)
		}
	})
	if allocs != 0 {
		t.Errorf("skimStatus allocated %v times; want 0", allocs)
	}
}

// TestHeaderBlockAllocs: once a target's header block is all references to
// the HPACK table, the fast HTTP/2 client reuses it as is.
func TestHeaderBlockAllocs(t *testing.T) {
	reqs, _ := newH2Requests([]Target{{URL: "https://127.0.0.1:8443/1k.bin"}})
	c := &h2Conn{run: &runner{cfg: Config{Targets: []Target{{}}}}}
	c.enc = hpack.NewEncoder(&c.encBuf)
	for range 3 { // the first encodings add the fields to the table
		c.headerBlock(0, &reqs[0])
	}
	allocs := testing.AllocsPerRun(100, func() { c.headerBlock(0, &reqs[0]) })
	if allocs != 0 {
		t.Errorf("headerBlock allocated %v times; want 0", allocs)
	}
}

// TestRunAllocsPerRequest measures what a request costs a whole run in
// allocations, against nginx (a process of its own, whose allocations do
// not count): the difference between runs of 2000 and 1000 requests,
// over 1000. The README says about one small object per request on
// HTTP/1.1 kept alive: measured 1.00 over TLS (crypto/tls's), 0.00 on
// plain TCP, and 2.8 on HTTP/2 (x/net's Framer allocates each HEADERS
// frame it reads); the raw reads and writes made 4 more per request.
// What encoding the run's seconds allocates is left out: hdrhistogram-go's
// encoder allocates once per bucket it writes, a cost per second and per
// distinct latency, not per request (measured apart by encodeAllocs).
func TestRunAllocsPerRequest(t *testing.T) {
	if lab.RaceDetector {
		t.Skip("the race detector's instrumentation allocates on its own")
	}
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	https := func(n *lab.Nginx) string { return n.HTTPSURL }
	plain := func(n *lab.Nginx) string { return n.HTTPURL }
	tests := []struct {
		name string
		cfg  Config
		url  func(*lab.Nginx) string
		max  float64
	}{
		{"HTTP/1.1", Config{Conns: 4}, https, 1.2},
		{"HTTP/1.1 plain", Config{Conns: 4}, plain, 0.2},
		{"HTTP/2", Config{Conns: 2, Streams: 8, Protocol: transport.HTTP2}, https, 3.2},
	}
	for _, tt := range tests {
		allocs := func(requests int64) float64 {
			cfg := tt.cfg
			cfg.Targets, cfg.TLS, cfg.Requests = []Target{{URL: tt.url(n) + "/1k.bin"}}, clientTLS(t, n.CA.CertPEM), requests
			results := make([]*Result, 0, 4) // AllocsPerRun's warm-up run, then the 3 it measures
			all := testing.AllocsPerRun(3, func() {
				res, err := Run(context.Background(), cfg)
				if err != nil || res.Errors > 0 {
					t.Fatalf("Run: %v, %v", err, res.ErrorCounts)
				}
				results = append(results, res)
			})
			enc := 0.0
			for _, res := range results[1:] {
				enc += encodeAllocs(t, res) / 3
			}
			return all - enc
		}
		perRequest := (allocs(2000) - allocs(1000)) / 1000
		t.Logf("%s: %.2f allocations per request", tt.name, perRequest)
		if perRequest > tt.max {
			t.Errorf("%s: %.2f allocations per request; want at most %v", tt.name, perRequest, tt.max)
		}
	}
}

// encodeAllocs is what encoding res's intervals allocates, as the run did
// when each closed (an empty histogram takes an encoding made once).
func encodeAllocs(t *testing.T, res *Result) float64 {
	var hs []*hdrhistogram.Histogram
	for _, iv := range res.Intervals {
		for _, enc := range iv.Latency.Phases() {
			h, err := DecodeHistogram(enc)
			if err != nil {
				t.Fatal(err)
			}
			if h.TotalCount() > 0 {
				hs = append(hs, h)
			}
		}
	}
	return testing.AllocsPerRun(1, func() {
		for _, h := range hs {
			_, _ = h.EncodeV2()
		}
	})
}
