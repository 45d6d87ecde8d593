//go:build !race

// The experiment tests start and restart real servers (nginx, or httpslab
// serve as a command template) in several processes for every variant:
// heavy integration tests that scripts/test.sh runs once, in its pass
// without the race detector, where their statistics are not slowed by it.

package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// experimentTemplate writes an nginx.conf serving HTTPS on a free port
// with a certificate named by relative paths; it returns the
// configuration's path, the URL and the CA file.
func experimentTemplate(t *testing.T) (conf, url, caFile string) {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Fatal("nginx not installed: the tests need it (scripts/test.sh installs it)")
	}
	dir := t.TempDir()
	port := labtest.FreePort(t, "tcp")
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(lab.ECDSAP256, lab.DefaultHosts...)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"cert.pem": leaf.CertPEM, "key.pem": leaf.KeyPEM, "ca.pem": ca.CertPEM,
		"nginx.conf": fmt.Appendf(nil, `events { worker_connections 256; }
http {
    access_log off;
    server {
        listen 127.0.0.1:%d ssl;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "ok"; }
    }
}
`, port)}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "nginx.conf"), fmt.Sprintf("https://localhost:%d/", port), filepath.Join(dir, "ca.pem")
}

func TestExperimentUsage(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	bench := []string{"--", "bench", "-n", "5", url, "--cacert", ca}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--vary", "a=1|2", "--", "bench", url}, "give one template: --nginx FILE or --server COMMAND"},
		{append([]string{"--nginx", conf}, bench...), "nothing to vary"},
		{[]string{"--nginx", conf, "--vary", "a=1|2"}, "no measurement: give a bench, probe, page or compare command line after --"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "bench", "--conn", "resume", url}, "hint: the measurement's own flags go after --"},
		{append([]string{"--nginx", conf, "--vary", "a=1"}, bench...), "want at least two values"},
		{append([]string{"--nginx", conf, "--vary", "a=1|x;y"}, bench...), "want arguments only"},
		{append([]string{"--nginx", conf, "--vary", "a=1|2", "-n", "0"}, bench...), "-n 0: want 1 to 1000 blocks"},
		{append([]string{"--nginx", conf, "--vary", "a=1|2", "--effect", "0"}, bench...), "--effect 0: want a percentage above 0"},
		{append([]string{"--nginx", conf, "--vary", "a=1|2", "--vary", "b=1|2", "--together", "--factorial"}, bench...),
			"choose one of --all-at-once, --factorial and --together"},
		{append([]string{"--nginx", conf, "--vary", "a=1|2", "--vary", "b=1|2|3", "--together"}, bench...), "give each as many"},
		{append([]string{"--nginx", conf, "--vary", "a=1|2", "--server-cpus", "1-0"}, bench...), "--server-cpus: CPU list \"1-0\""},
		{append([]string{"--nginx", "/nonexistent.conf", "--vary", "a=1|2"}, bench...), "reading --nginx /nonexistent.conf"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "ping", url}, `measurement "ping": want bench, probe, page or compare`},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "probe", "-w", "%{http_code}", url}, "do not apply inside experiment"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "probe", "-n", "3"}, "probe: want one URL, got 0"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "page", "--protocols", "h1,h2", url}, "page: one protocol inside experiment"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "page", "--har", "x.har", url}, "do not apply inside experiment"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "page", "--warmup", "0", url}, "--warmup does not apply inside experiment"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "page"}, "page: want the page's URL, got 0"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "bench", "--json", url}, "do not apply inside experiment"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "compare", "--vary", "tls"}, "compare inside experiment: want the server's URL"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "compare", "--rtt", "50ms", url}, "takes the link flags itself"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "compare", url, "--cacert", ca}, "cannot tell the plain-HTTP port"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "compare", "-n", "0", url}, "-n 0: want 1 to 2000"},
		{[]string{"--nginx", conf, "--vary", "a=1|2", "--", "bench", "--conn", "sometimes", url}, "sometimes"},
	} {
		code, _, stderr := run(t, context.Background(), append([]string{"experiment"}, tc.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("experiment %q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, ExitUsage, tc.stderr)
		}
	}
}

// TestExperimentReport runs the one-line form end to end and checks the
// report's lines: the variants' status and one line per metric.
func TestExperimentReport(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--nginx", conf, "--vary", "ssl_session_tickets=off|on",
		"-n", "2", "--seed", "7", "--", "bench", "--conn", "resume", "-c", "2", "-n", "30", url, "--cacert", ca)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"experiment: bench --conn resume -c 2 -n 30 " + url,
		"2 of 2 blocks, variants in shuffled order (seed 7)",
		"ssl_session_tickets on   verified  resumed: no → yes",
		"ssl_session_tickets on  requests/s ",
		"ssl_session_tickets on  server CPU/request ",
		// 2 blocks reach p = 0.5 at best: the report must say so.
		"warning: with 2 blocks no change can be significant",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
}

// TestExperimentBaselineRefused checks that a template nginx refuses
// ends the experiment with nginx's own message and a hint.
func TestExperimentBaselineRefused(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--nginx", conf, "--vary", "ssl_bogus=on|off",
		"--", "bench", "-n", "5", url, "--cacert", ca)
	if code != ExitFailure || stdout != "" || !strings.Contains(stderr, `unknown directive "ssl_bogus" in nginx.conf:2`) ||
		!strings.Contains(stderr, "httpslab: hint: check the template on its own: nginx -t -c "+conf) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant %d, nginx's message and the hint", code, stdout, stderr, ExitFailure)
	}
}

// TestExperimentWrongPort checks the hint when the measured URL is not
// where the template listens.
func TestExperimentWrongPort(t *testing.T) {
	conf, _, ca := experimentTemplate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	code, _, stderr := run(t, context.Background(), "experiment", "--nginx", conf, "--vary", "ssl_session_tickets=off|on",
		"--", "bench", "-n", "5", fmt.Sprintf("https://localhost:%d/", port), "--cacert", ca)
	if code != ExitFailure || !strings.Contains(stderr, "nothing listens on localhost:") ||
		!strings.Contains(stderr, "hint: the template must listen where the measured URL points") {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and the hint about the URL", code, stderr, ExitFailure)
	}
}

// TestExperimentFile runs an experiment file: named variants, one of two
// directives, the template named relative to the file. nginx 1.22 offers
// TLS 1.2 at most by default; its gzip leaves the text/plain answer alone,
// so the second variant is verified by its version alone.
func TestExperimentFile(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	file := filepath.Join(filepath.Dir(conf), "exp.toml")
	data := fmt.Sprintf(`nginx = "nginx.conf"
measure = ["bench", "--conn", "resume", "-n", "10", "-c", "1", %q, "--cacert", %q]
blocks = 2
seed = 5

[baseline]
ssl_session_tickets = "off"

[[variant]]
name = "tickets on"
set = { ssl_session_tickets = "on" }

[[variant]]
name = "TLS 1.3 and gzip"
set = { ssl_protocols = "TLSv1.3", gzip = "on" }
`, url, ca)
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, context.Background(), "experiment", "--file", file)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	// Columns are as wide as their longest cell: compare with single spaces.
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"2 of 2 blocks, variants in shuffled order (seed 5)", "baseline baseline the reference",
		"tickets on verified resumed: no → yes", "TLS 1.3 and gzip verified version: TLS 1.2 → TLS 1.3",
		"tickets on requests/s ", "TLS 1.3 and gzip handshake p50 "} {
		if !strings.Contains(flat, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	code, _, stderr = run(t, context.Background(), "experiment", "--file", file, "--vary", "a=1|2")
	if code != ExitUsage || !strings.Contains(stderr, "give no --nginx, --vary or -- with it") {
		t.Errorf("--file with --vary: exit %d, %q; want a usage error", code, stderr)
	}
}

// TestExperimentProbe measures with probe -n: the protocol versions
// differ, and the TLS 1.3-only variant is verified by the version.
func TestExperimentProbe(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--nginx", conf,
		"--vary", "ssl_protocols=TLSv1.2|TLSv1.3", "-n", "2", "--", "probe", "-n", "5", url, "--cacert", ca)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"ssl_protocols TLSv1.3  verified  version: TLS 1.2 → TLS 1.3", "ssl_protocols TLSv1.3  tls p50 ",
		"ssl_protocols TLSv1.3  wire bytes/request "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
}

// TestExperimentRouted checks that --resolve of the measurement routes
// the verification too: httpslab.test exists only through it.
func TestExperimentRouted(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	port := strings.TrimSuffix(url[strings.LastIndex(url, ":")+1:], "/")
	code, stdout, stderr := run(t, context.Background(), "experiment", "--nginx", conf, "--vary", "ssl_session_tickets=off|on",
		"-n", "1", "--", "bench", "-n", "10", "--conn", "resume", "https://httpslab.test:"+port+"/",
		"--resolve", "httpslab.test:"+port+":127.0.0.1", "--cacert", ca)
	if code != ExitOK || !strings.Contains(stdout, "ssl_session_tickets on   verified  resumed: no → yes") {
		t.Errorf("exit %d, report:\n%s%s\nwant the variant verified through the route", code, stdout, stderr)
	}
}

// TestExperimentInterrupted checks that a cancelled experiment reports
// the blocks it completed, exits 130 and leaves no nginx instance behind:
// nothing listens on the template's port any more and no private
// directory with the template's configuration remains.
func TestExperimentInterrupted(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	code, stdout, _ := run(t, ctx, "experiment", "--nginx", conf, "--vary", "ssl_session_tickets=off|on",
		"-n", "100", "--", "bench", "-c", "2", "-d", "0.2", url, "--cacert", ca)
	if code != ExitInterrupted || !strings.Contains(stdout, "interrupted after") {
		t.Errorf("exit %d, report:\n%s\nwant %d and the partial report", code, stdout, ExitInterrupted)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "https://localhost"), "/")
	if c, err := net.Dial("tcp", "127.0.0.1"+addr); err == nil {
		c.Close()
		t.Errorf("something still listens on 127.0.0.1%s after the interrupt", addr)
	}
	confs, _ := filepath.Glob(filepath.Join(os.TempDir(), "httpslab-nginx-*", "httpslab-nginx.conf"))
	for _, c := range confs {
		if data, err := os.ReadFile(c); err == nil && strings.Contains(string(data), "127.0.0.1"+addr+" ssl") {
			t.Errorf("left behind after the interrupt: %s", c)
		}
	}
}
