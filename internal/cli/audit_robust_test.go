package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestAuditUsageAndBrokenServers: bad flags are usage errors; a port that
// is closed, never answers, closes after the ClientHello or speaks plain
// HTTP each give an error with a hint that says so, quickly.
func TestAuditUsageAndBrokenServers(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	closed := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	closedURL := closed.HTTPSURL + "/"
	closed.Close()
	silent := labtest.NewMisbehaving(t, labtest.Silent).Addr
	closer := labtest.NewMisbehaving(t, labtest.CloseAfterRequest).Addr
	u := srv.HTTPSURL + "/"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{"cacert missing", []string{u, "--cacert", filepath.Join(t.TempDir(), "none.pem")}, ExitUsage, []string{"--cacert: reading CA bundle"}},
		{"connect-timeout negative", []string{u, "-k", "--connect-timeout", "-1s"}, ExitUsage, []string{"--connect-timeout -1s: want 0"}},
		{"large-path relative", []string{u, "-k", "--large-path", "bytes/100000"}, ExitUsage, []string{`--large-path "bytes/100000": want a path starting with /`}},
		{"closed port", []string{closedURL, "-k"}, ExitFailure, []string{"connection refused", "hint: is a TLS server listening"}},
		{"never answers", []string{"https://" + silent + "/", "-k", "--connect-timeout", "300ms"}, ExitFailure,
			[]string{"deadline exceeded", "did not complete a TLS handshake in time"}},
		{"closes after ClientHello", []string{"https://" + closer + "/", "-k"}, ExitFailure, []string{"EOF", "hint: the server closed the connection"}},
		{"plain HTTP port", []string{"https://" + strings.TrimPrefix(srv.HTTPURL, "http://") + "/", "-k"}, ExitFailure,
			[]string{"does not look like a TLS handshake", "did not answer with TLS (plain HTTP?); audit the server's HTTPS port, and give this one as --http-port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, _, stderr := run(t, context.Background(), append([]string{"audit"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("audit %q = %d; want %d\nstderr:\n%s", tt.args, code, tt.wantCode, stderr)
			}
			for _, w := range append([]string{"httpslab: error: "}, tt.wantErr...) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("audit took %v; want a quick failure", d)
			}
		})
	}
}

// TestAuditTLS12OnlyRSA audits an nginx with TLS 1.2 only, an RSA key and
// no OCSP: the findings say so and every number in the JSON is finite and
// not negative.
func TestAuditTLS12OnlyRSA(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true, Cert: lab.RSA2048, NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2; ssl_session_cache shared:SSL:1m;"})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, n.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"audit", n.HTTPSURL + "/", "--cacert", ca, "--attempts", "3", "--json"}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("audit = %d; want %d\n%s", code, ExitOK, stderr.String())
	}
	for _, id := range []string{`"tls13-missing"`, `"ocsp-no-responder"`, `"no-forward-secrecy"`} {
		if !strings.Contains(stdout.String(), id) {
			t.Errorf("audit JSON lacks finding %s", id)
		}
	}
	if strings.Contains(stdout.String(), `"tls12-missing"`) {
		t.Errorf("audit JSON has tls12-missing for a TLS 1.2 server")
	}
	var doc any
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("audit JSON: %v", err)
	}
	walkNumbers(t, "", doc)
}

// walkNumbers fails on a negative or non-finite number anywhere in v.
func walkNumbers(t *testing.T, path string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walkNumbers(t, path+"."+k, e)
		}
	case []any:
		for _, e := range x {
			walkNumbers(t, path+"[]", e)
		}
	case float64:
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			t.Errorf("%s = %v; want a measured, non-negative number", path, x)
		}
	}
}

// TestAuditHintsForAudit: the hints of a name that does not resolve and of
// a server that shares no suite with Go's TLS name audit's situation,
// not the flags of probe and bench (--resolve, --ciphers) that audit lacks.
func TestAuditHintsForAudit(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2;\nssl_ciphers CAMELLIA256-SHA:@SECLEVEL=0;"})
	tests := []struct {
		name, target string
		want         string
	}{
		{"name does not resolve", "https://no-such-host.invalid:8443/", "hint: the name no-such-host.invalid does not resolve"},
		{"no suite Go implements", n.HTTPSURL + "/", "hint: the server accepts none of the TLS versions and cipher suites Go implements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, context.Background(), "audit", tt.target, "-k", "--connect-timeout", "3s")
			if code != ExitFailure || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "--resolve") || strings.Contains(stderr, "--ciphers") {
				t.Errorf("audit %s = %d\n%s\nwant %d and %q, no flag audit lacks", tt.target, code, stderr, ExitFailure, tt.want)
			}
		})
	}
}

// TestAuditCertificateHints: a chain from a trusted CA that names another
// host, or has expired, is not a matter of --cacert: the hint says what is
// wrong, and -k audits it with the problem as a finding.
func TestAuditCertificateHints(t *testing.T) {
	ca, caFile := testCA(t)
	tests := []struct {
		name    string
		addr    string
		hint    string
		finding string
	}{
		{"another name", tlsServer(t, ca, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour), "other.test"),
			"hint: the certificate does not name 127.0.0.1", "cert-name-mismatch"},
		{"expired", tlsServer(t, ca, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour), "127.0.0.1"),
			"hint: the certificate has expired or is not yet valid", "cert-expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := "https://" + tt.addr + "/"
			code, _, stderr := run(t, context.Background(), "audit", u, "--cacert", caFile)
			if code != ExitFailure || !strings.Contains(stderr, tt.hint) || strings.Contains(stderr, "--cacert FILE") {
				t.Errorf("audit %s = %d\n%s\nwant %d and %q", u, code, stderr, ExitFailure, tt.hint)
			}
			code, stdout, stderr := run(t, context.Background(), "audit", u, "--cacert", caFile, "-k", "--attempts", "1")
			if code != ExitOK || !strings.Contains(stdout, tt.finding) {
				t.Errorf("audit -k %s = %d, stdout without %s\n%s", u, code, tt.finding, stderr)
			}
		})
	}
}
