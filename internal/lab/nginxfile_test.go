package lab

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// nginxTemplate writes a CA-signed certificate next to a configuration
// that names it by relative paths, as a user's nginx.conf in its own
// directory does; it returns the directory, the port and the CA pool.
func nginxTemplate(t *testing.T, extra string) (dir string, port int, roots *x509.CertPool) {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Fatal("nginx not installed: the tests need it (scripts/test.sh installs it)")
	}
	dir = t.TempDir()
	ca, err := NewCA(ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(ECDSAP256, DefaultHosts...)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"cert.pem": leaf.CertPEM, "key.pem": leaf.KeyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ports, err := freePorts(context.Background(), nil, "127.0.0.1", 1)
	if err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`pid /run/not-this.pid;
events { worker_connections 64; }
http {
    access_log /var/log/not-this.log;
    %s
    server {
        listen 127.0.0.1:%d ssl;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "ok"; }
    }
}
`, extra, ports[0])
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	roots = x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	return dir, ports[0], roots
}

func TestStartNginxFile(t *testing.T) {
	dir, port, roots := nginxTemplate(t, "http2_max_requests 10;")
	conf, _ := os.ReadFile(filepath.Join(dir, "nginx.conf"))
	p, err := StartNginxFile(context.Background(), NginxFileConfig{Config: conf, ConfDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], `"http2_max_requests" directive is obsolete`) {
		t.Errorf("Warnings = %q; want nginx's obsolete warning", p.Warnings)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := c.Get(fmt.Sprintf("https://localhost:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" {
		t.Errorf("body %q; want ok", body)
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "httpslab-access.log")); err != nil {
		t.Errorf("access log not in the instance's directory: %v", err)
	}
	pid := p.PID()
	p.Close()
	if _, err := os.Stat(p.Dir); !os.IsNotExist(err) {
		t.Errorf("directory %s left after Close: %v", p.Dir, err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("nginx %d still runs after Close", pid)
	}
}

func TestStartNginxFileRefused(t *testing.T) {
	dir, _, _ := nginxTemplate(t, "ssl_no_such_thing on;")
	conf, _ := os.ReadFile(filepath.Join(dir, "nginx.conf"))
	_, err := StartNginxFile(context.Background(), NginxFileConfig{Config: conf, ConfDir: dir})
	var ce *NginxCheckError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, `unknown directive "ssl_no_such_thing" in nginx.conf:5`) {
		t.Errorf("StartNginxFile = %v; want nginx's unknown directive message naming nginx.conf:5", err)
	}
}

// TestStartNginxFilePinned checks that --server-cpus reaches nginx's
// workers: their allowed CPUs are the ones asked for.
func TestStartNginxFilePinned(t *testing.T) {
	dir, _, _ := nginxTemplate(t, "")
	conf, _ := os.ReadFile(filepath.Join(dir, "nginx.conf"))
	p, err := StartNginxFile(context.Background(), NginxFileConfig{Config: conf, ConfDir: dir, CPUs: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var workers []int
	for range 100 { // the master forks its workers after writing its pid file
		if workers = machine.Children(p.PID()); len(workers) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(workers) == 0 {
		t.Fatal("no nginx worker")
	}
	for _, pid := range append(workers, p.PID()) {
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(status), "Cpus_allowed_list:\t0\n") {
			t.Errorf("process %d is not pinned to CPU 0:\n%s", pid, status)
		}
	}
}
