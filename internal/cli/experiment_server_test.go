//go:build !race

// The experiment tests start and restart real servers (nginx, or httpslab
// serve as a command template) in several processes for every variant:
// heavy integration tests that scripts/test.sh runs once, in its pass
// without the race detector, where their statistics are not slowed by it.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// serverTemplate returns the command line of httpslab serve (this test
// binary standing in for it) on a free port with a certificate kept in
// files, a {tickets} placeholder for its --no-tickets, the URL it serves
// and the CA that issued the certificate.
func serverTemplate(t *testing.T) (line, url, caFile string) {
	t.Helper()
	dir := t.TempDir()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	// An RSA key makes the full handshake's signature cost what
	// resumption saves, well above the noise of a busy machine.
	leaf, err := ca.Issue(lab.RSA2048, lab.DefaultHosts...)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"cert.pem": leaf.CertPEM, "key.pem": leaf.KeyPEM, "ca.pem": ca.CertPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	port := labtest.FreePort(t, "tcp")
	line = fmt.Sprintf("env HTTPSLAB_CLI_CHILD=httpslab %s serve --https-port %d --no-http3 --cert-file %s --key-file %s {tickets}",
		os.Args[0], port, filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"))
	return line, fmt.Sprintf("https://localhost:%d/", port), filepath.Join(dir, "ca.pem")
}

// TestExperimentServerCommand runs the embedded server as a command
// template, started and stopped for every run: tickets off (the
// baseline) against on under bench --conn resume. The variant is
// verified by resumption and its effect found: resumed handshakes are
// cheaper than full ones with an RSA certificate.
func TestExperimentServerCommand(t *testing.T) {
	line, url, ca := serverTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--server", line,
		"--vary", "tickets=--no-tickets|--no-tickets=false", "-n", "9", "--seed", "3",
		"--", "bench", "--conn", "resume", "-c", "2", "-n", "300", url, "--cacert", ca)
	if code != ExitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"9 of 9 blocks, variants in shuffled order (seed 3), a fresh server for each run",
		"tickets --no-tickets=false verified resumed: no → yes", "server: env HTTPSLAB_CLI_CHILD"} {
		if !strings.Contains(flat, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	found := false
	for l := range strings.Lines(stdout) {
		// variant, metric, baseline and variant medians with their
		// units, the change: a drop, not ~.
		f := strings.Fields(l)
		if len(f) > 8 && strings.Join(f[:4], " ") == "tickets --no-tickets=false handshake p50" {
			found = strings.HasPrefix(f[8], "-") && strings.HasSuffix(f[8], "%")
		}
	}
	if !found {
		t.Errorf("no significant drop of the handshake time with tickets on:\n%s", stdout)
	}
}

// TestExperimentServerCommandFails checks that a server command that
// exits at once ends the experiment with its own last words and a hint,
// and that nothing is left listening.
func TestExperimentServerCommandFails(t *testing.T) {
	line, url, ca := serverTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--server", line+" --tls-max 1.1",
		"--vary", "tickets=--no-tickets|--no-tickets=false", "--", "bench", "-n", "5", url, "--cacert", ca)
	if code != ExitFailure || stdout != "" || !strings.Contains(stderr, "the server stopped: it exited (exit status 2)") ||
		!strings.Contains(stderr, "hint: run the baseline's command on its own: env HTTPSLAB_CLI_CHILD") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant %d, the server's message and the hint", code, stdout, stderr, ExitFailure)
	}
	if c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "https://localhost"), "/")); err == nil {
		c.Close()
		t.Errorf("something listens on %s after the experiment", url)
	}
}

// TestExperimentPage measures with page over HTTP/2: a page of 20
// images from the embedded server, loaded 3 times per run, all on the one
// connection HTTP/2 opens per origin.
func TestExperimentPage(t *testing.T) {
	line, url, ca := serverTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--server", line,
		"--vary", "tickets=--no-tickets|--no-tickets=false", "-n", "2",
		"--", "page", "--http2", "-n", "3", url+"page/images?n=20&size=1000", "--cacert", ca)
	if code != ExitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"tickets --no-tickets=false verified resumed: no → yes",
		"tickets --no-tickets=false load p50 ", "tickets --no-tickets=false ttfb p50 ",
		"tickets --no-tickets=false connections/load 1.000 conn 1.000 conn ",
		"tickets --no-tickets=false wire bytes/load "} {
		if !strings.Contains(flat, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
}

// TestExperimentCompare measures with compare's rows of a full and a
// resumed handshake: each row's median total time is a metric. Where
// tickets are off (the baseline) the resumed row fails and has no value,
// so it gets no verdict; the full handshake is measured in both.
func TestExperimentCompare(t *testing.T) {
	line, url, ca := serverTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--server", line,
		"--vary", "tickets=--no-tickets|--no-tickets=false", "-n", "3", "--json",
		"--", "compare", "--vary", "handshake", "-n", "10", url, "--cacert", ca)
	if code != ExitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	var doc struct {
		Result struct {
			Metrics  []struct{ Name string }
			Variants []struct {
				Samples []*struct {
					Values   map[string]float64
					Requests int64
					Errors   int64
					Error    string
				}
			}
			Analysis struct{ Verdicts []struct{ Metric string } }
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	r := doc.Result
	var names, verdicts []string
	for _, m := range r.Metrics {
		names = append(names, m.Name)
	}
	for _, v := range r.Analysis.Verdicts {
		verdicts = append(verdicts, v.Metric)
	}
	full, resumed := "https h1 TLS1.3 p50", "https h1 TLS1.3 resumed p50"
	if want := []string{full, resumed, "server CPU/request"}; !slices.Equal(names, want) {
		t.Errorf("metrics %q; want %q", names, want)
	}
	if want := []string{full, "server CPU/request"}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts on %q; want %q", verdicts, want)
	}
	if len(r.Variants) != 2 || len(r.Variants[0].Samples) != 3 || len(r.Variants[1].Samples) != 3 {
		t.Fatalf("want 2 variants of 3 samples:\n%s", stdout)
	}
	for b := range 3 {
		off, on := r.Variants[0].Samples[b], r.Variants[1].Samples[b]
		if off == nil || on == nil {
			t.Fatalf("block %d has no sample:\n%s", b, stdout)
		}
		if _, ok := off.Values[resumed]; ok || !(off.Values[full] > 0) || !strings.Contains(off.Error, "did not resume") {
			t.Errorf("tickets off, block %d: %+v; want a full handshake's time and the resumed row failed", b, off)
		}
		if !(on.Values[full] > 0) || !(on.Values[resumed] > 0) || on.Requests != 20 || on.Errors != 0 {
			t.Errorf("tickets on, block %d: %+v; want both rows' times from 20 requests", b, on)
		}
	}
}

// TestExperimentCompareText checks that the text report says why a
// compare row has no verdict: the baseline's server did not resume.
func TestExperimentCompareText(t *testing.T) {
	line, url, ca := serverTemplate(t)
	code, stdout, stderr := run(t, context.Background(), "experiment", "--server", line,
		"--vary", "tickets=--no-tickets|--no-tickets=false", "-n", "2",
		"--", "compare", "--vary", "handshake", "-n", "5", url, "--cacert", ca)
	want := "no verdict on tickets --no-tickets=false https h1 TLS1.3 resumed p50: the baseline has no value in any complete block " +
		"(https h1 TLS1.3 resumed: the server did not resume the TLS session"
	if code != ExitOK || !strings.Contains(stdout, want) {
		t.Errorf("exit %d; stdout lacks %q:\n%s\nstderr:\n%s", code, want, stdout, stderr)
	}
}

// TestExperimentFileServer runs an experiment file whose template is the
// server's command line, with the certificate's paths relative to the
// file: the server runs in the file's directory.
func TestExperimentFileServer(t *testing.T) {
	line, url, ca := serverTemplate(t)
	dir := filepath.Dir(ca)
	line = strings.ReplaceAll(line, dir+string(filepath.Separator), "")
	file := filepath.Join(dir, "exp.toml")
	src := fmt.Sprintf(`server = %q
measure = ["probe", "-n", "5", %q, "--cacert", %q]
blocks = 2

[baseline]
tickets = "--no-tickets"

[[variant]]
name = "tickets on"
set = { tickets = "--no-tickets=false" }
`, line, url, ca)
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, context.Background(), "experiment", "--file", file)
	if code != ExitOK {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"tickets on verified resumed: no → yes", "tickets on total p50 ", "server: env HTTPSLAB_CLI_CHILD"} {
		if !strings.Contains(flat, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
}
