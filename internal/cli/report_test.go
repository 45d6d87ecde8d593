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

// TestHTMLFlag runs each command with --html and checks that the report
// it writes is the HTML report of its result.
func TestHTMLFlag(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"probe", "--cacert", ca, s.HTTPSURL + "/"}, "Waterfall"},
		{[]string{"bench", "--cacert", ca, "-n", "50", "-c", "2", s.HTTPSURL + "/"}, "Latency percentile spectrum"},
		{[]string{"audit", "--cacert", ca, "--attempts", "2", s.HTTPSURL + "/"}, "Findings by severity"},
		{[]string{"compare", "--cacert", ca, "--vary", "tls", "-n", "3", s.HTTPSURL + "/"}, "Difference against the baseline"},
		{[]string{"page", "--cacert", ca, "-n", "2", "--protocols", "h1,h2", s.HTTPSURL + "/page/styled"}, "Waterfall of the median h2 load"},
	} {
		path := filepath.Join(dir, tc.args[0]+".html")
		args := append(append([]string{}, tc.args...), "--html", path)
		if code, _, errOut := run(t, context.Background(), args...); code != ExitOK {
			t.Errorf("httpslab %q = %d: %s", args, code, errOut)
			continue
		}
		page, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(page), tc.want) || !strings.Contains(string(page), "<h2>"+tc.args[0]+": "+tc.args[0]+"</h2>") {
			t.Errorf("httpslab %q: --html wrote %d bytes (%v) without %q", args, len(page), err, tc.want)
		}
	}
	code, _, errOut := run(t, context.Background(), "bench", "-n", "5", "--html", filepath.Join(dir, "no", "x.html"), s.HTTPSURL+"/")
	if code != ExitUsage || !strings.Contains(errOut, "--html") {
		t.Errorf("bench --html into a missing directory = %d, %q; want a usage error before the run", code, errOut)
	}
}
