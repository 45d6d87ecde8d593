package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBenchSweep runs bench as a demanding user would, with values at and
// past the edges: each must end with its exit code and a message that
// names the problem, never a crash, a hang or a silent wrong number.
func TestBenchSweep(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	notPEM := filepath.Join(dir, "not.pem")
	for path, data := range map[string][]byte{ca: s.CA.CertPEM, notPEM: []byte("root:x:0:0::/root:/bin/sh\n")} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	u := s.HTTPSURL + "/"
	plainAsTLS := "https://" + strings.TrimPrefix(s.HTTPURL, "http://") + "/"
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
		served         int64 // requests the server counts, when not 0
	}{
		// Before the limit, -c 100000000 took 20 GB and was killed.
		{args: []string{u, "-c", "100000000"}, code: ExitUsage, stderr: "-c 100000000: want at most"},
		{args: []string{"-i", "/dev/zero"}, code: ExitUsage, stderr: "reading --input-file /dev/zero: more than the limit of 16 MiB"},
		// Huge -m and --pipeline ran until killed (a goroutine or slot each).
		{args: []string{u, "--http2", "-c", "2", "-m", "9223372036854775807", "--rate", "10", "-n", "5"}, code: ExitUsage, stderr: "-m 9223372036854775807: want at most 100000"},
		{args: []string{u, "--pipeline", "100000000"}, code: ExitUsage, stderr: "--pipeline 100000000: want at most 100000"},
		{args: []string{u, "--http3", "-c", "1000", "-m", "101"}, code: ExitUsage, stderr: "101000 requests at once, want at most 100000"},
		{args: []string{u, "-n", "5", "-d", "10s"}, code: ExitUsage, stderr: "-n 5 and -d 10s: give a count or a duration, not both"},
		{args: []string{u, "-t", "100000"}, code: ExitUsage, stderr: "-t 100000: want at most 1024"},
		{args: []string{u, "--cacert", ca, "-d", "1ns"}, code: ExitFailure, stderr: "httpslab: error: no request completed in the 1ns run"},
		{args: []string{u, "--cacert", notPEM, "-n", "1"}, code: ExitUsage, stderr: "hint: check the --cacert file"},
		{args: []string{plainAsTLS, "-k", "-n", "2"}, code: ExitFailure, stderr: "hint: the server did not answer with TLS; is this a plain-HTTP port? Try http://"},
		{args: []string{u, "-k", "-n", "1", "--fail-if", "errors>NaN%"}, code: ExitUsage, stderr: "out of range"},
		{args: []string{u, "-k", "-n", "1", "-X", "GET / HTTP/1.1\r\nX-Evil: 1\r\n\r\nGET"}, code: ExitUsage, stderr: "request method"},
		{args: []string{u, "-k", "-n", "1", "-H", "X-A: a\r\nX-B: b"}, code: ExitUsage, stderr: "control characters"},
		{args: []string{"http://user:pw@127.0.0.1:8080/", "-n", "1"}, code: ExitUsage, stderr: "credentials"},
		{args: []string{"http://127.0.0.1:99999/", "-n", "1"}, code: ExitUsage, stderr: "want 1 to 65535"},
		{args: []string{u, "--cacert", ca, "-n", "3", "-c", "100"}, code: ExitOK, stdout: "HTTP/1.1, 3 connections", served: 3},
	}
	for _, tt := range tests {
		before := s.Stats().Requests
		var stdout, stderr bytes.Buffer
		args := append([]string{"bench"}, tt.args...)
		code := Run(context.Background(), args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("httpslab %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
				args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
		if got := s.Stats().Requests - before; tt.served != 0 && got != tt.served {
			t.Errorf("httpslab %q: the server counted %d requests; want %d", args, got, tt.served)
		}
		if code == ExitUsage {
			if got := s.Stats().Requests - before; got != 0 {
				t.Errorf("httpslab %q: a usage error after %d requests; want none sent", args, got)
			}
		}
	}
}
