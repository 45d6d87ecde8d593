package labtest

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// LoggedRequest is one line of bench's --request-log: when the request
// started (Unix ns), its total latency (ns) and its status (0 for a
// request that failed).
type LoggedRequest struct {
	StartNS, LatencyNS int64
	Status             string
}

// Micros is the latency in µs as bench's histograms record it.
func (r LoggedRequest) Micros() int64 { return max(r.LatencyNS/1000, 1) }

// ReadRequestLog reads a --request-log file; a line not of its form fails
// the test.
func ReadRequestLog(t testing.TB, path string) []LoggedRequest {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []LoggedRequest
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			t.Fatalf("%s: line %q", path, sc.Text())
		}
		start, err1 := strconv.ParseInt(fields[0], 10, 64)
		ns, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: line %q", path, sc.Text())
		}
		out = append(out, LoggedRequest{StartNS: start, LatencyNS: ns, Status: fields[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return out
}
