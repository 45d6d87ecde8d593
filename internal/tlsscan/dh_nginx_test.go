//go:build !race

package tlsscan

import (
	"context"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// sClientTLS12 connects with openssl s_client limited to TLS 1.2, as an
// OpenSSL 3 client at Debian's default security level, and returns what
// it printed.
func sClientTLS12(t *testing.T, httpsURL string) string {
	t.Helper()
	u, _ := url.Parse(httpsURL)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "openssl", "s_client", "-tls1_2", "-connect", u.Host)
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// TestDHSmallPreferred: a 1024-bit prime on the DHE suite nginx prefers
// in TLS 1.2 makes OpenSSL clients fail ("dh key too small", as
// openssl s_client -tls1_2 shows): dh-small says who fails and is high
// without TLS 1.3; medium with TLS 1.3, which those clients use instead.
// The fix (a 2048-bit prime, made with the command it gives) lets
// s_client in and makes the finding go.
func TestDHSmallPreferred(t *testing.T) {
	t.Parallel()
	dh1024, dh2048 := dhParams(t)
	for _, tt := range []struct {
		protocols string
		want      Severity
	}{{"ssl_protocols TLSv1.2;", High}, {"ssl_protocols TLSv1.2 TLSv1.3;", Medium}} {
		t.Run(tt.protocols, func(t *testing.T) {
			t.Parallel()
			// @SECLEVEL=0: nginx itself refuses a 1024-bit prime at Debian's level 2.
			start := []string{tt.protocols, "ssl_ciphers DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0;",
				"ssl_prefer_server_ciphers on;", "ssl_dhparam " + dh1024 + ";"}
			cfg := lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: strings.Join(start, "\n")}
			n := labtest.StartNginx(t, cfg)
			if out := sClientTLS12(t, n.HTTPSURL); !strings.Contains(out, "dh key too small") {
				t.Fatalf("openssl s_client -tls1_2 did not fail on the 1024-bit prime:\n%s", out)
			}
			rep, _, err := auditLab(t, n, false)
			if err != nil {
				t.Fatal(err)
			}
			f := findingByID(rep.Findings, "dh-small")
			if f == nil || f.Severity != tt.want || !strings.Contains(f.Cost.Fails, "OpenSSL") ||
				!strings.Contains(f.Evidence, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256") {
				t.Fatalf("dh-small %+v; want %s, naming the clients that fail and the suite they get", f, tt.want)
			}
			cfg.TLSDirectives = strings.Join(applyFix(start, strings.ReplaceAll(f.Fix, dhparamFile, dh2048)), "\n")
			fixed := labtest.StartNginx(t, cfg)
			if out := sClientTLS12(t, fixed.HTTPSURL); !strings.Contains(out, "Cipher is DHE-RSA-AES128-GCM-SHA256") {
				t.Errorf("after the fix, openssl s_client -tls1_2 did not get the DHE suite:\n%s", out)
			}
			rep, _, err = auditLab(t, fixed, false)
			if err != nil {
				t.Fatal(err)
			}
			if f := findingByID(rep.Findings, "dh-small"); f != nil {
				t.Errorf("after its fix, dh-small is still found: %s", f.Evidence)
			}
		})
	}
}

// dhParams writes a 1024-bit and a 2048-bit DH prime for ssl_dhparam
// into the test's temporary directory and returns their files.
func dhParams(t *testing.T) (dh1024, dh2048 string) {
	t.Helper()
	dir := t.TempDir()
	dh1024, dh2048 = filepath.Join(dir, "dh1024.pem"), filepath.Join(dir, "dh2048.pem")
	for _, f := range []struct{ file, bits string }{{dh1024, "1024"}, {dh2048, "2048"}} {
		if out, err := exec.Command("openssl", "dhparam", "-dsaparam", "-out", f.file, f.bits).CombinedOutput(); err != nil {
			t.Fatalf("openssl dhparam: %v\n%s", err, out)
		}
	}
	return dh1024, dh2048
}
