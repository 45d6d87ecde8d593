package tlsscan

import (
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

// directiveKey is what makes two nginx directives the same setting: the
// name, and for add_header the header name too.
func directiveKey(line string) string {
	f := strings.Fields(strings.TrimSuffix(line, ";"))
	if len(f) > 1 && f[0] == "add_header" {
		return f[0] + " " + strings.ToLower(f[1])
	}
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// applyFix edits a list of server-block directives as a user would with
// a fix: each directive of the fix replaces the one of the same key, or
// is added. Comment lines are left out.
func applyFix(directives []string, fix string) []string {
	for _, line := range strings.Split(fix, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		k := directiveKey(line)
		directives = slices.DeleteFunc(directives, func(d string) bool { return directiveKey(d) == k })
		directives = append(directives, line)
	}
	return directives
}

// TestFixesFixFindings audits nginx set up badly, applies the nginx lines
// of each finding to its configuration, starts it again (nginx checks the
// syntax on start) and audits again: every finding fixed must be gone.
func TestFixesFixFindings(t *testing.T) {
	t.Parallel()
	// dh1024 is the bad prime; dh2048 is what the user makes as the fix
	// of dh-small says, with the command it gives.
	dh1024, dh2048 := filepath.Join(t.TempDir(), "dh1024.pem"), filepath.Join(t.TempDir(), "dh2048.pem")
	for _, f := range []struct{ file, bits string }{{dh1024, "1024"}, {dh2048, "2048"}} {
		if out, err := exec.Command("openssl", "dhparam", "-dsaparam", "-out", f.file, f.bits).CombinedOutput(); err != nil {
			t.Fatalf("openssl dhparam: %v\n%s", err, out)
		}
	}
	tests := []struct {
		name  string
		start []string
		want  []string
		plain []string // the plain server's directives
	}{
		{"TLS 1.2 only, no resumption, no HTTP hardening", []string{
			"ssl_protocols TLSv1.2;", "ssl_session_cache off;", "ssl_session_tickets off;", "keepalive_timeout 0;",
			"add_header Strict-Transport-Security max-age=300;",
		}, []string{"tls13-missing", "tls12-resumption-off", "keepalive-off", "compression-off", "http2-missing", "hsts-short",
			"csp-missing", "dotfiles-exposed", "http-no-redirect", "cbc-suites", "no-forward-secrecy", "record-size-large"}, nil},
		{"TLS 1.3 with P-384 only, no resumption, 128-byte records", []string{
			"ssl_protocols TLSv1.2 TLSv1.3;", "ssl_ecdh_curve secp384r1;", "ssl_session_cache off;", "ssl_session_tickets off;",
			"ssl_buffer_size 128;",
		}, []string{"hello-retry", "tls13-resumption-off", "tls12-resumption-off", "record-size-small"}, nil},
		{"legacy versions and suites", []string{
			"ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;", "ssl_ciphers ALL:@SECLEVEL=0;", "ssl_dhparam " + dh1024 + ";",
		}, []string{"tls1.0-enabled", "tls1.1-enabled", "weak-suites", "dh-small", "cbc-suites", "no-forward-secrecy"}, nil},
		{"compressed pages, cookies without attributes, no security headers", []string{
			"ssl_protocols TLSv1.2 TLSv1.3;", "gzip on;",
			// The application behind nginx sets the cookie: here nginx itself, behind proxy_pass.
			"location = / { proxy_pass https://127.0.0.1:$server_port/app; }",
			`location = /app { default_type text/html; add_header Set-Cookie "sid=1; Path=/"; return 200 "<html>` + strings.Repeat("page ", 100) + `</html>"; }`,
		}, []string{"breach", "cookie-flags", "nosniff-missing", "framing-allowed", "referrer-policy-missing", "permissions-policy-missing"}, nil},
		{"the client's suite order with CBC suites", []string{
			"ssl_protocols TLSv1.2 TLSv1.3;", "ssl_prefer_server_ciphers off;", "ssl_dhparam " + dh2048 + ";",
			// IE 11 on Windows 7 lists ECDHE CBC before DHE AES-GCM.
			"ssl_ciphers ECDHE-RSA-AES256-SHA384:DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256;",
		}, []string{"cipher-order-client", "cbc-suites"}, nil},
		{"a redirect chain from plain HTTP", []string{"ssl_protocols TLSv1.2 TLSv1.3;"}, []string{"redirect-chain"},
			[]string{"location = / { return 301 /step; }", "location = /step { return 301 https://$host/; }"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: strings.Join(tt.start, "\n"),
				PlainDirectives: strings.Join(tt.plain, "\n")}
			rep := auditNginx(t, cfg)
			directives := tt.start
			plain := tt.plain
			for _, id := range tt.want {
				f := findingByID(rep.Findings, id)
				if f == nil {
					t.Fatalf("findings %v lack %s", ids(rep), id)
				}
				// Auditors search for the attacks by name.
				if a, ok := map[string]string{"tls1.0-enabled": "BEAST", "cbc-suites": "LUCKY13", "dh-small": "LOGJAM", "breach": "BREACH"}[id]; ok &&
					!slices.Contains(f.Attacks, a) {
					t.Errorf("%s names attacks %v; want %s", id, f.Attacks, a)
				}
				if id == "cipher-order-client" && (f.Severity != Low || !strings.Contains(f.Cost.Note, "IE 11")) {
					t.Errorf("cipher-order-client is %v, cost %q; want low, naming IE 11 on Windows 7", f.Severity, f.Cost.Note)
				}
				if rec := rep.Records; id == "record-size-small" && f.Cost.Bytes != int64(22*rec.DataRecords) {
					// TLS 1.3 with an AEAD: a 5-byte header, the content type and a 16-byte tag per record.
					t.Errorf("record-size-small costs %d bytes for %d records; want 22 per record", f.Cost.Bytes, rec.DataRecords)
				}
				switch {
				case strings.HasPrefix(f.Fix, "server {"):
					// A server block for the plain port: its lines go into
					// the lab's plain server, which listens there already.
					if want := "listen " + portOf(t, rep.Redirect.URL) + ";"; !strings.Contains(f.Fix, want) {
						t.Errorf("%s fix %q lacks %q", id, f.Fix, want)
					}
					if want := "https://$host:" + rep.port() + "$request_uri"; !strings.Contains(f.Fix, want) {
						t.Errorf("%s fix %q sends users elsewhere than the HTTPS port; want %q", id, f.Fix, want)
					}
					body := strings.TrimSuffix(strings.TrimPrefix(f.Fix, "server {"), "}")
					plain = applyFix(plain, strings.ReplaceAll(body, "listen ", "# listen "))
				case strings.HasPrefix(f.Fix, "listen "):
					// The lab writes the listen line itself.
					if want := "listen " + rep.port() + " ssl http2;"; f.Fix != want {
						t.Errorf("%s fix %q; want %q", id, f.Fix, want)
					}
					cfg.HTTP2 = true
				default:
					directives = applyFix(directives, strings.ReplaceAll(f.Fix, dhparamFile, dh2048))
				}
			}
			cfg.TLSDirectives, cfg.PlainDirectives = strings.Join(directives, "\n"), strings.Join(plain, "\n")
			t.Logf("fixed configuration:\n%s\nplain server:\n%s", cfg.TLSDirectives, cfg.PlainDirectives)
			fixed := auditNginx(t, cfg)
			for _, id := range tt.want {
				if f := findingByID(fixed.Findings, id); f != nil {
					t.Errorf("after its fix, %s is still found: %s", id, f.Evidence)
				}
			}
		})
	}
}

func findingByID(fs []Finding, id string) *Finding {
	for i := range fs {
		if fs[i].ID == id {
			return &fs[i]
		}
	}
	return nil
}

func portOf(t *testing.T, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}
