package report

import (
	"crypto/tls"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// newBenchHist is a histogram as load keeps them: microseconds from 1 µs
// to one hour, 3 significant digits.
func newBenchHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
}

// recordNS records a duration in nanoseconds as load does, in µs.
func recordNS(h *hdrhistogram.Histogram, ns int64) {
	_ = h.RecordValue(max(ns/1000, 1))
}

// sampleBench builds a deterministic open-model result at 100 req/s:
// 100 requests on new connections of which all but the first resumed,
// the n-th request sent n*20 µs late and taking 1 ms + n*50 µs from
// its intended start, then one malformed response.
func sampleBench() *load.Result {
	cfg := load.Config{Targets: []load.Target{{URL: "https://127.0.0.1:8443/"}, {URL: "https://127.0.0.1:8443/a"}},
		Protocol: transport.HTTP1, Conns: 4, Streams: 1, Pipeline: 1, Rate: 100, Mode: transport.Resumed, RequestsPerConn: 1}
	r := &load.Result{Config: cfg, Start: time.Unix(0, 0), Status: map[int]int64{200: 100},
		ErrorCounts: map[string]int64{"malformed HTTP response": 1}, Requests: 100, Errors: 1, Bytes: 100 * 1100,
		Connections: 100, Handshakes: 100, Resumed: 99, Elapsed: 1001 * time.Millisecond,
		TLS: []load.TLSCount{{Version: tls.VersionTLS13, Cipher: tls.TLS_AES_128_GCM_SHA256, Curve: tls.X25519, Full: 1, Resumed: 99}},
		Latency: load.Latency{Connect: newBenchHist(), TLS: newBenchHist(), Waiting: newBenchHist(), Total: newBenchHist(),
			Service: newBenchHist()}}
	for i := int64(0); i < 100; i++ {
		recordNS(r.Latency.Connect, 50e3)
		recordNS(r.Latency.TLS, 400e3+i*1e3)
		intended, start, end := i*10e6, i*10e6+i*20e3, i*10e6+1e6+i*50e3
		recordNS(r.Latency.Waiting, 500e3)
		recordNS(r.Latency.Total, end-intended)
		recordNS(r.Latency.Service, end-start)
		if lag := time.Duration(start - intended); lag > load.LateAfter {
			r.Late++
		}
	}
	r.Client = load.ClientH1
	r.MaxLag, r.Sent, r.LastSend = 99*20*time.Microsecond, 100, time.Duration(99*10e6+99*20e3)
	r.CPU = load.CPU{ClientUser: 30 * time.Millisecond, ClientSystem: 20 * time.Millisecond, ClientCores: 1,
		Wall: time.Second, ServerMeasured: true, ServerUser: 40 * time.Millisecond, ServerSystem: 10 * time.Millisecond,
		ServerBusiest: load.ProcBusy{PID: 4321, CPU: 50 * time.Millisecond, Cores: 1}}
	r.Intervals = sampleIntervals(r)
	return r
}

// sampleIntervals splits sampleBench's run into its seconds: every
// request ended in the first; the malformed response in the second, of
// which the run lasted 1 ms (partial).
func sampleIntervals(r *load.Result) []load.Interval {
	enc := func(h *hdrhistogram.Histogram) string {
		b, _ := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		return string(b)
	}
	l, empty := r.Latency, enc(newBenchHist())
	return []load.Interval{
		{Start: r.Start, Length: time.Second, Requests: r.Requests, Latency: load.IntervalLatency{Connect: enc(l.Connect),
			TLS: enc(l.TLS), Waiting: enc(l.Waiting), Total: enc(l.Total), Service: enc(l.Service)}},
		{Offset: time.Second, Start: r.Start.Add(time.Second), Length: time.Millisecond, Partial: true, Errors: r.Errors,
			Latency: load.IntervalLatency{Connect: empty, TLS: empty, Waiting: empty, Total: empty, Service: empty}},
	}
}

// benchText renders r with Bench.
func benchText(t *testing.T, r *load.Result) string {
	t.Helper()
	var b strings.Builder
	if err := Bench(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestBenchGolden(t *testing.T) {
	labtest.Golden(t, "bench.golden", []byte(benchText(t, sampleBench())))
}

func TestBenchJSONGolden(t *testing.T) {
	b, err := json.MarshalIndent(NewBenchJSON(sampleBench()), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "bench-json.golden", append(b, '\n'))
}

// TestBenchLoadLineInFlight: the Load line says how many requests a
// connection had in flight, which --requests-per-conn can hold below -m
// or --pipeline.
func TestBenchLoadLineInFlight(t *testing.T) {
	for _, tt := range []struct {
		streams, pipeline, perConn int
		want                       string
	}{
		{4, 1, 0, "4 connections x 4 streams, --conn resume, "},
		{4, 1, 1, "4 connections (-m 4 asked: a connection of 1 request has at most 1 in flight), --conn resume (1 request per connection)"},
		{8, 1, 3, "4 connections x 3 streams (-m 8 asked: a connection of 3 requests has at most 3 in flight), --conn resume (3 requests"},
		{1, 8, 3, "4 connections, pipeline 3 (--pipeline 8 asked: a connection of 3 requests has at most 3 in flight), --conn resume"},
		{1, 8, 30, "4 connections, pipeline 8, --conn resume (30 requests per connection)"},
	} {
		r := sampleBench()
		r.Config.Streams, r.Config.Pipeline, r.Config.RequestsPerConn = tt.streams, tt.pipeline, tt.perConn
		if out := benchText(t, r); !strings.Contains(out, tt.want) {
			t.Errorf("-m %d --pipeline %d --requests-per-conn %d: report lacks %q:\n%s", tt.streams, tt.pipeline, tt.perConn, tt.want, out)
		}
	}
}

// TestBenchLines renders results of the shapes real runs produce (see
// internal/load's tests for the runs themselves) and checks the line
// each must show, in the text and in the JSON.
func TestBenchLines(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *load.Result)
		want   []string
		not    []string
		json   func(j BenchJSON) bool
	}{
		{"server streams", func(r *load.Result) {
			n := int64(128)
			r.Config.Conns, r.Config.Streams, r.Config.RequestsPerConn, r.ServerStreams = 1, 300, 0, &n
		}, []string{"1 connection x 300 streams (the server allows 128 at once)"}, nil,
			func(j BenchJSON) bool { return j.ServerStreams != nil && *j.ServerStreams == 128 }},
		{"server allows no streams", func(r *load.Result) {
			var n int64
			r.Config.Conns, r.Config.Streams, r.Config.RequestsPerConn, r.ServerStreams = 1, 1, 0, &n
		}, []string{"1 connection (the server allowed no streams: SETTINGS_MAX_CONCURRENT_STREAMS 0)"}, nil,
			func(j BenchJSON) bool { return j.ServerStreams != nil && *j.ServerStreams == 0 }},
		{"capacity", func(r *load.Result) { r.Config.Rate, r.Dropped = 10000, 500 }, // 4 connections, a mean of 2.5 ms: 1,600/s
			[]string{"Capacity:        4 requests in flight at a mean 2.49ms each hold at most 1609/s, below --rate 10000; raise -c to 25 or more"}, nil,
			func(j BenchJSON) bool { return j.Dropped == 500 }},
		{"failed connections", func(r *load.Result) { r.Connections, r.DialErrors = 0, 10 },
			[]string{"Connections:     0 opened, 10 failed"}, nil, func(j BenchJSON) bool { return j.DialErrors == 10 }},
		{"h2c", func(r *load.Result) {
			r.Config.Protocol, r.Config.Targets = transport.HTTP2, []load.Target{{URL: "http://127.0.0.1:8080/"}}
		}, []string{"Load:            HTTP/2 (h2c: cleartext, prior knowledge), 4 connections"}, nil,
			func(j BenchJSON) bool { return j.Protocol == "HTTP/2" }},
		{"client quota", func(r *load.Result) { r.CPU.ClientCores, r.CPU.ClientQuota = 2, 0.5 },
			[]string{"client used 10% of 0.5 core(s) (its cgroup CPU quota)"}, nil,
			func(j BenchJSON) bool { return j.CPU.ClientQuota == 0.5 && j.CPU.ClientCores == 2 }},
		{"server not listening", func(r *load.Result) { r.CPU.NotListening, r.CPU.ServerPort = true, 8443 },
			[]string{"note: no --server-pid process (nor a child) receives on port 8443"}, nil,
			func(j BenchJSON) bool { return j.CPU.ServerNotListening }},
		{"server saturated", func(r *load.Result) {
			r.Config.Rate = 0
			r.CPU.ServerBusiest = load.ProcBusy{PID: 77, CPU: 240 * time.Millisecond, Cores: 0.25}
		}, []string{"Limit:   the server (process 77 at 96% of 0.25 core(s))"}, nil,
			func(j BenchJSON) bool {
				b := j.CPU.ServerBusiest
				return b != nil && b.PID == 77 && b.Cores == 0.25 && b.Saturated
			}},
		{"open model has no Limit line", func(*load.Result) {}, nil, []string{"Limit:"},
			func(j BenchJSON) bool { return j.CPU.ServerBusiest != nil && !j.CPU.ServerBusiest.Saturated }},
		{"others", func(r *load.Result) { r.CPU.Others, r.CPU.OthersMeasured = 500*time.Millisecond, true },
			[]string{"  Others:  other processes kept 0.50 cores busy on average\n"}, nil,
			func(j BenchJSON) bool { return j.CPU.Others != nil && *j.CPU.Others == 0.5 }},
	}
	for _, tt := range tests {
		r := sampleBench()
		tt.change(r)
		out := benchText(t, r)
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: report lacks %q:\n%s", tt.name, w, out)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: report has %q:\n%s", tt.name, n, out)
			}
		}
		if j := NewBenchJSON(r); !tt.json(j) {
			t.Errorf("%s: JSON %+v does not say so", tt.name, j)
		}
	}
}

// TestBenchLimitLine: the CPU section has a Limit line exactly when the
// result judges what set the pace.
func TestBenchLimitLine(t *testing.T) {
	for _, rate := range []float64{0, 100} {
		r := sampleBench()
		r.Config.Rate = rate
		if out, limit := benchText(t, r), r.Limit(); strings.Contains(out, "Limit:   "+limit+"\n") != (limit != "") ||
			strings.Contains(out, "Limit:") != (limit != "") {
			t.Errorf("rate %v: limit %q; report:\n%s", rate, limit, out)
		}
	}
}

// TestBenchEmpty renders an interrupted run that got no response: no NaN
// or Inf in the text or the JSON, and the status line says none came.
func TestBenchEmpty(t *testing.T) {
	r := &load.Result{Config: load.Config{Targets: []load.Target{{URL: "https://127.0.0.1:8443/"}}, Conns: 4, Streams: 1,
		Pipeline: 1, Protocol: transport.HTTP2}, Elapsed: 300 * time.Millisecond, Interrupted: true,
		Status: map[int]int64{}, ErrorCounts: map[string]int64{},
		Latency: load.Latency{Connect: newBenchHist(), TLS: newBenchHist(), Waiting: newBenchHist(), Total: newBenchHist(),
			Service: newBenchHist()}}
	text := benchText(t, r)
	js, err := json.Marshal(NewBenchJSON(r))
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	for _, out := range []string{text, string(js)} {
		if strings.Contains(out, "NaN") || strings.Contains(out, "Inf") {
			t.Errorf("output has NaN or Inf:\n%s", out)
		}
	}
	for _, want := range []string{"Interrupted:     yes, a partial report\n", "Status codes:    none (no response)\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
}

// TestBenchAskedConns runs -n below -c against the embedded server: the
// Load line says what ran and what was asked ("1 connections" it said,
// and nothing of -c 100).
func TestBenchAskedConns(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, tt := range []struct {
		n     int64
		conns int
		want  string
	}{
		{1, 100, "1 connection (-c 100 asked: -n 1 needs no more), --conn"},
		{3, 100, "3 connections (-c 100 asked: -n 3 needs no more), --conn"},
		{20, 4, "4 connections, --conn"},
	} {
		res := mustRun(t, load.Config{Targets: []load.Target{{URL: srv.HTTPSURL + "/"}}, Requests: tt.n, Conns: tt.conns,
			TLS: clientTLS(t, srv.CA.CertPEM)})
		if out := benchText(t, res); !strings.Contains(out, "Load:            HTTP/1.1, "+tt.want) {
			t.Errorf("-n %d -c %d: report\n%s\nwant a Load line with %q", tt.n, tt.conns, out, tt.want)
		}
	}
}
