package labtest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// StartOpenSSLServer starts `openssl s_server` on a free loopback port
// with leaf's certificate and key and the options in args (such as
// "-tls1_2 -cipher AES128-SHA -client_renegotiation"), and returns its
// host:port once it accepts connections. It answers one connection at a
// time, and stops with the test.
func StartOpenSSLServer(t testing.TB, leaf *lab.Leaf, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, leaf.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, leaf.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(FreePort(t, "tcp"))
	cmd := exec.Command("openssl", append([]string{"s_server", "-accept", addr, "-cert", cert, "-key", key}, args...)...)
	// s_server stops at the end of its standard input: it is held open
	// until the test ends.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting openssl s_server: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if !WaitExit(cmd.Process.Pid, 2*time.Second) {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
	})
	// It says ACCEPT once it listens; what it says after is drained.
	lines := bufio.NewScanner(stdout)
	var said []string
	for lines.Scan() {
		said = append(said, lines.Text())
		if lines.Text() == "ACCEPT" {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return addr
		}
	}
	t.Fatalf("openssl s_server %s did not start:\n%s", strings.Join(args, " "), strings.Join(said, "\n"))
	return ""
}
