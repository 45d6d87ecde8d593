package report

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestBenchJSONAgreesWithHDR checks a real run's JSON: each histogram's
// summary is what its HDR encoding decodes to, and the text report's
// histogram and table count the same requests.
func TestBenchJSONAgreesWithHDR(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	res := mustRun(t, load.Config{Targets: []load.Target{{URL: s.HTTPSURL + "/delay/1ms"}}, Conns: 4, Requests: 400, Rate: 2000,
		TLS: clientTLS(t, s.CA.CertPEM)})
	data, err := json.Marshal(NewBenchJSON(res))
	if err != nil {
		t.Fatal(err)
	}
	var j BenchJSON
	if err := json.Unmarshal(data, &j); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"connect": res.Connections, "tls": res.Handshakes, "waiting": 400, "total": 400, "service": 400}
	for name, count := range want {
		jh, ok := j.Latency[name]
		if !ok {
			t.Fatalf("no %s histogram in the JSON", name)
		}
		h, err := hdrhistogram.Decode([]byte(jh.HDR))
		if err != nil {
			t.Fatalf("%s: decoding HDR: %v", name, err)
		}
		if h.TotalCount() != count || jh.Count != count || h.Min() != jh.Min || h.Max() != jh.Max || h.Mean() != jh.Mean || h.StdDev() != jh.StdDev {
			t.Errorf("%s: JSON count %d min %d max %d mean %g sd %g; HDR %d %d %d %g %g; want %d requests",
				name, jh.Count, jh.Min, jh.Max, jh.Mean, jh.StdDev, h.TotalCount(), h.Min(), h.Max(), h.Mean(), h.StdDev(), count)
		}
		for _, p := range BenchPercentiles {
			key := "p" + strconv.FormatFloat(p, 'f', -1, 64)
			if got := h.ValueAtQuantile(p); got != jh.Percentiles[key] {
				t.Errorf("%s %s: JSON %d µs, HDR %d µs", name, key, jh.Percentiles[key], got)
			}
		}
	}
	// The ten buckets of the text histogram hold every request.
	out := benchText(t, res)
	var sum int64
	for _, m := range regexp.MustCompile(`(?m)^ +[0-9.]+ \[ *([0-9]+)\]`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sum += n
	}
	if sum != 400 {
		t.Errorf("text histogram buckets hold %d requests; want 400:\n%s", sum, out)
	}
}

// mustRun runs bench's load with cfg and fails the test on an error or a
// failed request.
func mustRun(t *testing.T, cfg load.Config) *load.Result {
	t.Helper()
	res, err := load.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Errors != 0 {
		t.Fatalf("Run: %d errors: %v", res.Errors, res.ErrorCounts)
	}
	return res
}

// clientTLS trusts the lab's CA.
func clientTLS(t testing.TB, caPEM []byte) transport.TLS {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("lab CA: no certificate")
	}
	return transport.TLS{Trust: transport.Trust{RootCAs: pool}}
}
