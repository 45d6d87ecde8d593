package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

func TestAuditCommand(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, n.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse(n.HTTPURL)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"json fail-on high", []string{"audit", n.HTTPSURL + "/", "--cacert", ca, "--http-port", pu.Port(), "--json", "--fail-on", "high"},
			ExitThreshold, `"schema": "httpslab/audit/v4"`, "dotfiles-exposed"},
		{"text", []string{"audit", strings.TrimPrefix(n.HTTPSURL, "https://"), "--cacert", ca, "--attempts", "3"},
			ExitOK, "SPEED (", ""},
		{"untrusted", []string{"audit", n.HTTPSURL}, ExitFailure, "", "pass --cacert FILE or -k to audit anyway (reported as cert-untrusted)"},
		{"insecure", []string{"audit", n.HTTPSURL, "-k", "--fail-on", "high"}, ExitThreshold, "cert-untrusted", ""},
		{"cacert without PEM", []string{"audit", n.HTTPSURL, "--cacert", notPEM}, ExitUsage, "", "no PEM certificate"},
		{"bad fail-on", []string{"audit", n.HTTPSURL, "--fail-on", "severe"}, ExitUsage, "", "unknown severity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.wantCode || !strings.Contains(stdout.String(), tt.wantStdout) || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("httpslab %v = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
					tt.args, code, stdout.String(), stderr.String(), tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
			if strings.Contains(tt.wantStdout, "schema") {
				var env struct {
					Result struct {
						Findings []struct{ ID, Severity string }
					}
				}
				if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || len(env.Result.Findings) == 0 {
					t.Errorf("JSON output does not parse (%v) or has no findings", err)
				}
			}
		})
	}
}
