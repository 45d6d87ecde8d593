package cli

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBenchRoute runs bench with --resolve, --connect-to, -4/-6 and h2c
// against the embedded server and nginx, and with bad entries.
func TestBenchRoute(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{Hosts: []string{"httpslab.test", "xn--bcher-kva.test"}})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := s.CA.WriteFile(ca); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(s.HTTPSURL, "https://"))
	byName := "https://httpslab.test:" + port + "/bytes/100"
	// A Unicode host goes to DNS, SNI and the certificate check as its
	// A-label, on every protocol, with --resolve given either way.
	idn := "https://bücher.test:" + port + "/bytes/10"
	idnTarget := "Target:          https://xn--bcher-kva.test:" + port + "/bytes/10"
	n := labtest.StartNginx(t, lab.NginxConfig{PlainHTTP2: true})
	h1only := labtest.StartNginx(t, lab.NginxConfig{})
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderr   string
		requests int64 // the embedded server's count, when it serves the run
	}{
		{name: "resolve", args: []string{byName, "--resolve", "httpslab.test:" + port + ":127.0.0.1", "-n", "50", "-c", "2"},
			code: ExitOK, stdout: "50 completed, 0 failed", requests: 50},
		{name: "connect-to http3", args: []string{"https://httpslab.test:1/bytes/100", "--connect-to", "httpslab.test:1:127.0.0.1:" + port,
			"--http3", "-4", "-n", "40", "-c", "2", "-m", "2"}, code: ExitOK, stdout: "40 completed, 0 failed", requests: 40},
		{name: "IDN HTTP/1.1", args: []string{idn, "--resolve", "bücher.test:" + port + ":127.0.0.1", "-n", "4", "-c", "2"},
			code: ExitOK, stdout: idnTarget, requests: 4},
		{name: "IDN HTTP/2", args: []string{idn, "--resolve", "xn--bcher-kva.test:" + port + ":127.0.0.1", "--http2", "-n", "4", "-c", "1"},
			code: ExitOK, stdout: idnTarget, requests: 4},
		{name: "IDN HTTP/3", args: []string{idn, "--resolve", "BÜCHER.test:" + port + ":127.0.0.1", "--http3", "-n", "4", "-c", "1"},
			code: ExitOK, stdout: idnTarget, requests: 4},
		{name: "bad IDN", args: []string{"https://bad\u00adname\u200d.test/", "-n", "1"}, code: ExitUsage,
			stderr: "not a valid internationalized domain name"},
		{name: "h2c", args: []string{n.HTTPURL + "/1k.bin", "--http2", "-n", "30", "-c", "1", "-m", "3"},
			code: ExitOK, stdout: "HTTP/2 (h2c: cleartext, prior knowledge)"},
		{name: "bad resolve", args: []string{byName, "--resolve", "httpslab.test:" + port}, code: ExitUsage,
			stderr: `httpslab: error: parsing --resolve "httpslab.test:` + port + `": want HOST:PORT:ADDR[,ADDR]`},
		{name: "bad resolve address", args: []string{byName, "--resolve", "httpslab.test:" + port + ":nowhere"}, code: ExitUsage,
			stderr: `httpslab: error: parsing --resolve`},
		{name: "bad connect-to", args: []string{byName, "--connect-to", "a:1:b"}, code: ExitUsage,
			stderr: `httpslab: error: parsing --connect-to "a:1:b": want HOST1:PORT1:HOST2:PORT2`},
		{name: "-4 and -6", args: []string{byName, "-4", "-6"}, code: ExitUsage, stderr: "httpslab: error: choose one of -4 and -6"},
		{name: "no such host", args: []string{"https://nohost.invalid:" + port + "/", "-n", "1", "--timeout", "5s"}, code: ExitFailure,
			stderr: "httpslab: hint: the name does not resolve; --resolve HOST:PORT:ADDR connects without DNS"},
		{name: "-6 without an IPv6 address", args: []string{byName, "-6", "--resolve", "httpslab.test:" + port + ":127.0.0.1", "-n", "1"},
			code: ExitFailure, stderr: "httpslab: error: connecting to httpslab.test:" + port + ": no IPv6 address in --resolve"},
		{name: "h2c embedded", args: []string{s.HTTPURL + "/bytes/10", "--http2", "-n", "20", "-c", "1", "-m", "4"},
			code: ExitOK, stdout: "20 completed, 0 failed", requests: 20},
		{name: "h2c to HTTP/1.1", args: []string{h1only.HTTPURL + "/1k.bin", "--http2", "-n", "2", "-c", "1"}, code: ExitFailure,
			stderr: "httpslab: hint: the server answered HTTP/1.1 to HTTP/2 without TLS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Stats().Requests
			args := append([]string{"bench", "--cacert", ca}, tt.args...)
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), args, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("httpslab %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
					args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
			if got := s.Stats().Requests - before; tt.requests > 0 && got != tt.requests {
				t.Errorf("server counted %d requests; want %d", got, tt.requests)
			}
		})
	}
}
