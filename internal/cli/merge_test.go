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

// TestMergeCommand runs two bench workers against the embedded server
// and merges their results: the text and --json reports, --fail-if's
// exit code, and refusals as errors with hints.
func TestMergeCommand(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	file := func(name string, args ...string) string {
		var stdout, stderr bytes.Buffer
		if code := Run(context.Background(), args, &stdout, &stderr); code != ExitOK {
			t.Fatalf("httpslab %q = %d: %s", args, code, stderr.String())
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, stdout.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bench := []string{"bench", "--cacert", ca, "-c", "4", "-n", "200", "--json", "--workers", "2", s.HTTPSURL + "/"}
	w0 := file("w0.json", append(bench, "--index", "0")...)
	w1 := file("w1.json", append(bench, "--index", "1")...)
	other := file("other.json", "bench", "--cacert", ca, "-n", "10", "--json", s.HTTPSURL+"/bytes/10")
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"merge", w0, w1}, ExitOK, "Requests:        200 completed, 0 failed", ""},
		{[]string{"merge", w1, w0, "--json"}, ExitOK, `"results": 2`, ""},
		{[]string{"merge", w0, w1, "--fail-if", "rps<1e12"}, ExitThreshold, "Merged:          2 results", "threshold tripped: rps<1e12"},
		{[]string{"merge", w0, w0}, ExitFailure, "", "httpslab: error: worker 0 of 2 appears twice: " + w0 + " and " + w0 + "\nhttpslab: hint: "},
		{[]string{"merge", w0}, ExitFailure, "", "httpslab: error: worker 1 of 2 is missing\nhttpslab: hint: "},
		{[]string{"merge", w0, other}, ExitFailure, "", "are results of different configurations"},
		{[]string{"merge", w0, ca}, ExitFailure, "", "httpslab: hint: give the files bench --json wrote"},
		{[]string{"merge", w0, w1, "--fail-if", "p99"}, ExitUsage, "", "threshold"},
		{[]string{"merge"}, ExitUsage, "", ""},
	} {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("httpslab %q = %d; want %d with %q on stdout, %q on stderr\nstdout:\n%s\nstderr:\n%s",
				tt.args, code, tt.code, tt.stdout, tt.stderr, stdout.String(), stderr.String())
		}
	}
}
