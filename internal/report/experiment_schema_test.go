package report_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

// experimentOutput runs a two-block experiment on a private nginx (two
// variants and one nginx refuses) and returns its --json document.
func experimentOutput(t *testing.T) []byte {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Fatal("nginx not installed: the tests need it (scripts/test.sh installs it)")
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(lab.ECDSAP256, lab.DefaultHosts...)
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`events { worker_connections 64; }
http { access_log off; server { listen 127.0.0.1:%d ssl; ssl_certificate cert.pem; ssl_certificate_key key.pem;
    location / { return 200 "ok"; } } }
`, port)
	for name, data := range map[string][]byte{"cert.pem": leaf.CertPEM, "key.pem": leaf.KeyPEM, "ca.pem": ca.CertPEM, "nginx.conf": []byte(conf)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return runJSON(t, "experiment", "--json", "--nginx", filepath.Join(dir, "nginx.conf"), "--vary", "ssl_session_tickets=off|on|maybe",
		"-n", "2", "--", "bench", "--conn", "resume", "-n", "10", "-c", "1", fmt.Sprintf("https://localhost:%d/", port),
		"--cacert", filepath.Join(dir, "ca.pem"))
}
