package load

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestRequestLog runs the open and the closed model with a request log
// and checks that it holds every request, within the run's time, and
// that the total histogram's percentiles are those of the logged
// latencies within the histogram's precision.
func TestRequestLog(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, rate := range []float64{0, 400} {
		path := filepath.Join(t.TempDir(), "requests.log")
		res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/1ms"}}, TLS: clientTLS(t, s.CA.CertPEM),
			Conns: 4, Requests: 200, Rate: rate, RequestLog: path})
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if int64(len(lines)) != res.Requests {
			t.Fatalf("rate %g: %d lines in the request log; want %d, one per request", rate, len(lines), res.Requests)
		}
		var latencies []int64
		end := res.Start.Add(res.Elapsed + time.Millisecond)
		for _, line := range lines {
			f := strings.Fields(line)
			start, err1 := strconv.ParseInt(f[0], 10, 64)
			latency, err2 := strconv.ParseInt(f[1], 10, 64)
			if len(f) != 3 || err1 != nil || err2 != nil || f[2] != "200" {
				t.Fatalf("rate %g: line %q; want start_unix_ns latency_ns 200", rate, line)
			}
			if at := time.Unix(0, start); at.Before(res.Start) || at.Add(time.Duration(latency)).After(end) {
				t.Errorf("rate %g: a request from %v for %v, outside the run (%v for %v)", rate, at, time.Duration(latency), res.Start, res.Elapsed)
			}
			latencies = append(latencies, latency/1000) // the histogram's microseconds
		}
		slices.Sort(latencies)
		for _, q := range []float64{50, 90, 99, 100} {
			// The value of rank q% of n, rounded, as hdrhistogram-go ranks.
			exact := latencies[max(int((q/100)*float64(len(latencies))+0.5)-1, 0)]
			got := res.Latency.Total.ValueAtQuantile(q)
			if !res.Latency.Total.ValuesAreEquivalent(got, exact) {
				t.Errorf("rate %g: p%g %d µs in the histogram, %d µs in the log; want equal within its precision", rate, q, got, exact)
			}
		}
	}
}
