package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

func TestBenchCommand(t *testing.T) {
	s := lab.StartTestServer(t, lab.Config{})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	u := s.HTTPSURL + "/bytes/100"
	tests := []struct {
		args     []string
		code     int
		stdout   string
		stderr   string
		wantJSON bool
	}{
		{args: []string{"bench", u, "--cacert", ca, "-c", "2", "-n", "50"}, code: ExitOK, stdout: "Requests:        50 completed, 0 failed"},
		{args: []string{"bench", u, "--cacert", ca, "-n", "20", "--fail-if", "errors>0", "--fail-if", "p99>10s"}, code: ExitOK},
		{args: []string{"bench", u, "--cacert", ca, "-n", "20", "--fail-if", "rps<1e9"}, code: ExitThreshold, stderr: "threshold tripped: rps<1e9"},
		{args: []string{"bench", u, "--cacert", ca, "-n", "10", "--json"}, code: ExitOK, wantJSON: true},
		{args: []string{"bench", u, "-n", "4", "-c", "1"}, code: ExitFailure, stderr: "--cacert"},
		{args: []string{"bench", u, "--conn", "sometimes"}, code: ExitUsage, stderr: "unknown connection mode"},
		{args: []string{"bench", u, "-d", "soon"}, code: ExitUsage, stderr: "want a duration"},
		{args: []string{"bench", u, "--pipeline", "2", "--http2"}, code: ExitUsage, stderr: "pipelining"},
		{args: []string{"bench", u, "--fail-if", "p99"}, code: ExitUsage, stderr: "threshold"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("httpslab %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
				tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
		if tt.wantJSON {
			var env struct {
				Schema string `json:"schema"`
				Result struct {
					Requests int64 `json:"requests"`
				} `json:"result"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || env.Schema != "httpslab/bench/v1" || env.Result.Requests != 10 {
				t.Errorf("--json output: %v, schema %q, requests %d; want httpslab/bench/v1 with 10", err, env.Schema, env.Result.Requests)
			}
		}
	}
}
