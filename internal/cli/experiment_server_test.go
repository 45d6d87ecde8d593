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
	"path/filepath"
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
