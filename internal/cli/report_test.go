package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestReportCommand writes the report of two real bench results with
// labels, and checks the errors for what report cannot read.
func TestReportCommand(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var files []string
	for i, proto := range []string{"--http1.1", "--http2"} {
		code, out, errOut := run(t, context.Background(), "bench", "--json", proto, "--cacert", ca, "-n", "40", "-c", "2", s.HTTPSURL+"/")
		if code != ExitOK {
			t.Fatalf("bench %s = %d: %s", proto, code, errOut)
		}
		files = append(files, filepath.Join(dir, []string{"a.json", "b.json"}[i]))
		if err := os.WriteFile(files[i], []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	html := filepath.Join(dir, "r.html")
	if code, _, errOut := run(t, context.Background(), "report", files[0], files[1], "--label", "one <b>", "-o", html); code != ExitOK {
		t.Fatalf("report = %d: %s", code, errOut)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bench: 2 results overlaid", "one &lt;b&gt;", "b.json", "Total latency percentile spectrum"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report of two bench results: no %q", want)
		}
	}
	notJSON := filepath.Join(dir, "x.json")
	old := filepath.Join(dir, "old.json")
	_ = os.WriteFile(notJSON, []byte(`{"hello": 1}`), 0o600)
	_ = os.WriteFile(old, []byte(`{"schema": "httpslab/probe/v1", "result": {}}`), 0o600)
	for _, tc := range []struct {
		args     []string
		code     int
		want     string
		wantHint bool
	}{
		{[]string{"report", files[0]}, ExitUsage, "report needs -o FILE", true},
		{[]string{"report", notJSON, "-o", html}, ExitFailure, `not an httpslab result: no "schema" field`, true},
		{[]string{"report", old, "-o", html}, ExitFailure, "schema httpslab/probe/v1 is not read by this httpslab", false},
		{[]string{"report", files[0], "--label", "a", "--label", "b", "-o", html}, ExitUsage, "2 --label for 1 results", true},
		{[]string{"report", filepath.Join(dir, "missing.json"), "-o", html}, ExitFailure, "no such file", false},
	} {
		code, _, errOut := run(t, context.Background(), tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "httpslab: hint:") != tc.wantHint {
			t.Errorf("httpslab %q = %d, %q; want %d, %q (hint %v)", tc.args, code, errOut, tc.code, tc.want, tc.wantHint)
		}
	}
}
