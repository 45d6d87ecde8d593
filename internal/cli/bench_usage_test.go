package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBenchAsPeerUsers runs bench as users of wrk, ab and hey would type
// it: wrk's bare -d seconds run for that long, and a URL without its
// scheme is refused with a hint that writes it.
func TestBenchAsPeerUsers(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	hostPort := strings.TrimPrefix(s.HTTPURL, "http://")
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		// wrk -d 5 runs 5 s; bench refused "-d 5" as no duration.
		{args: []string{s.HTTPURL + "/", "-c", "2", "-d", "0.3"}, code: ExitOK, stdout: "Time taken:      0.3"},
		{args: []string{s.HTTPURL + "/", "-d", "-1"}, code: ExitUsage, stderr: `-d "-1": want a duration`},
		{args: []string{s.HTTPURL + "/", "-d", "1e300"}, code: ExitUsage, stderr: `-d "1e300": want a duration`},
		{args: []string{s.HTTPURL + "/", "-d", "Inf"}, code: ExitUsage, stderr: `-d "Inf": want a duration`},
		// "127.0.0.1:8080/" failed in the URL parser: "first path segment
		// in URL cannot contain colon", with the generic hint.
		{args: []string{hostPort + "/", "-n", "1"}, code: ExitUsage,
			stderr: "want an http:// or https:// URL\nhttpslab: hint: write the scheme, e.g. https://" + hostPort + "/\n"},
		{args: []string{"localhost:8443", "-n", "1"}, code: ExitUsage, stderr: "hint: write the scheme, e.g. https://localhost:8443/"},
		// ab -H 'Connection: close' ran on kept-alive connections: the
		// field was dropped without a word.
		{args: []string{s.HTTPURL + "/", "-n", "1", "-H", "connection: Close"}, code: ExitUsage,
			stderr: "-H 'Connection: Close': bench decides when connections close\nhttpslab: hint: --conn new opens a connection per request"},
		{args: []string{s.HTTPURL + "/", "-n", "1", "-H", "Connection: keep-alive"}, code: ExitOK, stdout: "1 completed"},
		// The URLs took standard input and the body sent was empty.
		{args: []string{"-i", "-", "-d", "@-", "-n", "1"}, code: ExitUsage, stderr: "-i - and a body from @-: standard input can be read once"},
		{args: []string{"-i", "-", "--data", "@-", "-n", "1"}, code: ExitUsage, stderr: "standard input can be read once"},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(t, context.Background(), append([]string{"bench"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("httpslab bench %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
				tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}

// TestBenchHTTP3Refused checks the hint when HTTP/3 finds no QUIC server
// on a port whose TCP side serves HTTPS: it said that nothing listens on
// the port, while nginx answered HTTPS there.
func TestBenchHTTP3Refused(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	code, _, stderr := run(t, context.Background(), "bench", n.HTTPSURL+"/", "-k", "--http3", "-n", "2")
	if code != ExitFailure || !strings.Contains(stderr, "hint: nothing receives QUIC on that UDP port") {
		t.Errorf("bench --http3 on an nginx without QUIC = %d, stderr:\n%s\nwant %d and the QUIC hint", code, stderr, ExitFailure)
	}
}

// TestBenchPeerFlags checks the hints for the flags of wrk, ab, hey and
// h2load that bench spells otherwise: they met the generic "see --help".
func TestBenchPeerFlags(t *testing.T) {
	for _, tt := range []struct {
		flags []string
		hint  string
	}{
		{[]string{"-z", "10s"}, "hint: -z is hey's duration; bench takes -d"},
		{[]string{"-D", "10"}, "hint: -D is h2load's duration; bench takes -d"},
		{[]string{"-m", "POST"}, "hint: -m is the streams per connection, as in h2load; the method (hey -m) is -X"},
		{[]string{"-q", "100"}, "hint: -q is hey's rate per worker; bench takes the total rate, --rate R"},
		{[]string{"-kT", "application/json"}, "hint: -T is ab's content type; give -H 'Content-Type: TYPE'"},
		{[]string{"-p", "body.json"}, "hint: -p is ab's POST body file; give -d @FILE"},
		{[]string{"--latency"}, "hint: bench always prints the latency percentiles"},
		{[]string{"-s", "script.lua"}, "hint: bench runs no scripts (wrk -s)"},
		{[]string{"-Z"}, "hint: see 'httpslab --help'"},
	} {
		code, _, stderr := run(t, context.Background(), append([]string{"bench", "https://127.0.0.1:1/"}, tt.flags...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.hint) {
			t.Errorf("bench %q = %d, stderr:\n%s\nwant %d and %q", tt.flags, code, stderr, ExitUsage, tt.hint)
		}
	}
}

// TestBenchThresholdOnFailedRun checks that a tripped threshold on a run
// in which every request failed keeps its exit code and still says why
// the requests failed: it said only "threshold tripped: rps<1000".
func TestBenchThresholdOnFailedRun(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	code, _, stderr := run(t, context.Background(), "bench", s.HTTPSURL+"/", "-n", "3", "--fail-if", "rps<1000")
	if code != ExitThreshold || !strings.Contains(stderr, "threshold tripped: rps<1000 (measured 0.0); every request failed") ||
		!strings.Contains(stderr, "hint: ") || !strings.Contains(stderr, "--cacert") {
		t.Errorf("bench without --cacert and --fail-if rps<1000 = %d, stderr:\n%s\nwant %d, the failure and the certificate hint", code, stderr, ExitThreshold)
	}
}
