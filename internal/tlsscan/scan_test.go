package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// goodTLS is a well-configured HTTPS server block for a lab nginx.
var goodTLS = map[string]string{
	"protocols": "ssl_protocols TLSv1.2 TLSv1.3;",
	"ciphers":   "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;",
	"cache":     "ssl_session_cache shared:audit:1m;",
	"tickets":   "ssl_session_tickets on;",
	"buffer":    "ssl_buffer_size 4k;",
	"gzip":      "gzip on;",
	"hsts":      `add_header Strict-Transport-Security "max-age=63072000; includeSubDomains; preload" always;`,
	"csp":       `add_header Content-Security-Policy "default-src 'self'" always;`,
	"dotfiles":  `location ~ /\.(?!well-known) { deny all; }`,
	"headers": `add_header X-Content-Type-Options nosniff always;
add_header X-Frame-Options SAMEORIGIN always;
add_header Referrer-Policy strict-origin-when-cross-origin always;
add_header Permissions-Policy "camera=()" always;`,
}

const goodPlain = "return 301 https://$host$request_uri;"

// directives renders goodTLS with the changes applied (an empty value removes).
func directives(changes map[string]string) string {
	var keys []string
	for k := range goodTLS {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := goodTLS[k]
		if c, ok := changes[k]; ok {
			v = c
		}
		b.WriteString(v + "\n")
	}
	return b.String()
}

// baseline are the findings of a well-configured lab nginx: nginx 1.22
// has no HTTP/3, lab certificates name no OCSP responder nor CRL, and a
// compressed page meets BREACH's conditions (which the audit cannot rule
// out from outside: an uncompressed one would be compression-off), and
// the client chooses among its AEAD suites (Mozilla's intermediate
// profile, nginx's default ssl_prefer_server_ciphers off).
var baseline = []string{"breach", "cert-no-revocation", "cipher-order-client", "http3-missing", "ocsp-no-responder"}

func auditNginx(t *testing.T, cfg lab.NginxConfig) *Report {
	t.Helper()
	n := labtest.StartNginx(t, cfg)
	pool := x509.NewCertPool()
	pool.AddCert(n.CA.Cert)
	u, _ := url.Parse(n.HTTPSURL)
	pu, _ := url.Parse(n.HTTPURL)
	port, _ := strconv.Atoi(u.Port())
	plain, _ := strconv.Atoi(pu.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{Host: u.Hostname(), Port: port, HTTPPort: plain, Trust: transport.Trust{RootCAs: pool},
		LargePath: "/100k.bin", Attempts: 10, Concurrency: 4})
	if err != nil {
		t.Fatalf("Run(%s): %v", n.HTTPSURL, err)
	}
	return rep
}

func ids(r *Report) []string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.ID)
	}
	slices.Sort(out)
	return out
}

func TestAuditNginx(t *testing.T) {
	tests := []struct {
		name    string
		changes map[string]string
		cfg     lab.NginxConfig
		plain   string
		extra   []string
	}{
		{name: "well configured"},
		{name: "TLS 1.2 only", changes: map[string]string{"protocols": "ssl_protocols TLSv1.2;"}, extra: []string{"tls13-missing"}},
		{name: "TLS 1.3 only", changes: map[string]string{"protocols": "ssl_protocols TLSv1.3;"}, extra: []string{"tls12-missing"}},
		{name: "CBC suites", changes: map[string]string{"ciphers": "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA384;"},
			extra: []string{"cbc-suites"}},
		{name: "no session cache, no tickets", changes: map[string]string{"cache": "ssl_session_cache off;", "tickets": "ssl_session_tickets off;"},
			extra: []string{"tls12-resumption-off", "tls13-resumption-off"}},
		{name: "RSA 4096 leaf and root", cfg: lab.NginxConfig{Cert: lab.RSA4096, SendRoot: true},
			extra: []string{"cert-key-large", "chain-root-sent"}},
		{name: "no HSTS", changes: map[string]string{"hsts": ""}, extra: []string{"hsts-missing"}},
		{name: "plain HTTP without redirect", plain: "# serves files", extra: []string{"http-no-redirect"}},
		{name: "HTTP/2 off", cfg: lab.NginxConfig{HTTP2: false}, extra: []string{"http2-missing"}},
		{name: "TLS 1.0 and 1.1", changes: map[string]string{"protocols": "ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;",
			"ciphers": "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES128-SHA:@SECLEVEL=0;"},
			extra: []string{"cbc-suites", "tls1.0-enabled", "tls1.1-enabled"}},
		{name: "0-RTT on", changes: map[string]string{"tickets": "ssl_session_tickets on;\nssl_early_data on;"}, extra: []string{"early-data"}},
		{name: "P-384 only", changes: map[string]string{"protocols": "ssl_protocols TLSv1.2 TLSv1.3;\nssl_ecdh_curve secp384r1;"},
			extra: []string{"hello-retry"}},
		{name: "keep-alive off", changes: map[string]string{"gzip": "gzip on;\nkeepalive_timeout 0;"}, extra: []string{"keepalive-off"}},
		{name: "redirect chain", plain: "location = / { return 301 /step; }\nlocation = /step { return 301 https://$host/; }",
			extra: []string{"redirect-chain"}},
		{name: "nginx defaults", changes: map[string]string{"buffer": "", "gzip": "", "hsts": "", "csp": "", "dotfiles": "", "headers": ""},
			extra: []string{"compression-off", "csp-missing", "dotfiles-exposed", "hsts-missing", "record-size-large",
				"nosniff-missing", "framing-allowed", "referrer-policy-missing", "permissions-policy-missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := tt.cfg
			cfg.NoDefaults = true
			cfg.HTTP2 = tt.name != "HTTP/2 off"
			cfg.TLSDirectives = directives(tt.changes)
			cfg.PlainDirectives = goodPlain
			if tt.plain != "" {
				cfg.PlainDirectives = tt.plain
			}
			rep := auditNginx(t, cfg)
			want := append(slices.Clone(baseline), tt.extra...)
			if g, ok := tt.changes["gzip"]; ok && !strings.Contains(g, "gzip on") {
				want = slices.DeleteFunc(want, func(id string) bool { return id == "breach" })
			}
			if tt.changes["protocols"] == "ssl_protocols TLSv1.3;" {
				// TLS 1.3's suites are all AEAD: no order to speak of.
				want = slices.DeleteFunc(want, func(id string) bool { return id == "cipher-order-client" })
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, ids(rep)); diff != "" {
				t.Errorf("finding ids (-want +got):\n%s\nnot checked: %v", diff, rep.NotChecked)
			}
			if len(rep.NotChecked) > 0 {
				t.Errorf("not checked: %v", rep.NotChecked)
			}
			checkOrder(t, rep.Findings)
			for _, f := range rep.Findings {
				// On loopback no time may read as the cost of round trips.
				if c := f.Cost; c.RoundTrips != 0 && rep.RTT < transport.MinRTTForRounds && (c.Time != 0 || c.NotPriced == "") {
					t.Errorf("%s at RTT %v costs %v with not_priced %q; want no time and the reason", f.ID, rep.RTT, c.Time, c.NotPriced)
				}
			}
			if tt.name == "well configured" {
				checkWellConfigured(t, rep)
			}
			if f := findingByID(rep.Findings, "chain-root-sent"); f != nil && rep.Negotiated.Version == "TLS 1.3" {
				// The measured Certificate message less what it would be with
				// the leaf alone: 4 header, 1 context, 3 list length, then the
				// leaf's 3-byte length and 2-byte extensions length.
				if want := int64(rep.Records.Certificate - (4 + 1 + 3 + 3 + rep.Chain.Certs[0].Bytes + 2)); f.Cost.Bytes != want {
					t.Errorf("chain-root-sent costs %d bytes; the Certificate message measured says %d", f.Cost.Bytes, want)
				}
			}
			if f := findingByID(rep.Findings, "early-data"); f != nil && !rep.HTTP3.EarlyData && strings.Contains(f.Title, "accepted") {
				t.Errorf("early-data title %q, but no early data was sent", f.Title)
			}
			if tt.name == "no session cache, no tickets" {
				checkNoResumption(t, rep)
			}
		})
	}
}

// checkWellConfigured asserts what the good server must show besides its
// finding ids: no speed findings, and the facts behind them.
func checkWellConfigured(t *testing.T, rep *Report) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Category == Speed {
			t.Errorf("speed finding %s on a well-configured server", f.ID)
		}
	}
	res := rep.Resumption
	if res.Resumed != res.Attempts || res.Attempts != 10 {
		t.Errorf("resumed %d of %d; want 10 of 10", res.Resumed, res.Attempts)
	}
	if n := rep.Records.FirstDataRecord; n == 0 || n > 4096+256 {
		t.Errorf("first record %d bytes with ssl_buffer_size 4k; want 1 to %d", n, 4096+256)
	}
	if rep.Negotiated.ALPN != "h2" || rep.Redirect == nil || !rep.Redirect.ToHTTPS || !rep.HTTP.HSTS.Preload {
		t.Errorf("ALPN %q, redirect %+v, HSTS %+v; want h2, a redirect to https and a preload HSTS", rep.Negotiated.ALPN, rep.Redirect, rep.HTTP.HSTS)
	}
	if got := rep.Enumeration.Supported(); !slices.Equal(got, []uint16{VersionTLS12, VersionTLS13}) {
		t.Errorf("versions %v; want TLS 1.2 and 1.3", got)
	}
	// OpenSSL offers the same elliptic curves in TLS 1.2 as in 1.3; with
	// an ECDSA P-256 certificate a TLS 1.2 client must also list P-256.
	var ec12, ec13 []string
	for _, g := range rep.Enumeration.Groups {
		if g.DHBits != 0 || strings.HasPrefix(g.Name, "ffdhe") {
			continue
		}
		if g.Version == VersionTLS12 {
			ec12 = append(ec12, g.Name)
		} else {
			ec13 = append(ec13, g.Name)
		}
	}
	if !slices.Equal(ec12, ec13) || len(ec12) < 4 {
		t.Errorf("TLS 1.2 groups %v, TLS 1.3 groups %v; want the same elliptic curves (X25519, P-256, P-384...)", ec12, ec13)
	}
	if rep.Elapsed > 2*time.Second {
		t.Errorf("audit took %v; want under 2 s", rep.Elapsed)
	}
}

// checkNoResumption asserts that what resumption would save is measured:
// the certificate and signature messages as the server sent them; and
// that no resumed handshake time is shown when none resumed.
func checkNoResumption(t *testing.T, rep *Report) {
	t.Helper()
	rec := rep.Records
	f := findingByID(rep.Findings, "tls13-resumption-off")
	if rec.Certificate == 0 || rec.CertificateVerify == 0 || f == nil || f.Cost.Bytes != int64(rec.Certificate+rec.CertificateVerify) {
		t.Errorf("records %+v, finding %+v; want a cost of the measured Certificate and CertificateVerify bytes", rec, f)
	}
	if res := rep.Resumption; res.Attempts != 10 || res.Resumed != 0 || res.FullHandshake <= 0 {
		t.Errorf("resumption %+v; want none of 10 resumed and a full handshake time", res)
	}
}

// checkOrder asserts speed findings first, then safety, then information.
func checkOrder(t *testing.T, fs []Finding) {
	t.Helper()
	rank := map[Category]int{Speed: 0, Safety: 1, About: 2}
	for i := 1; i < len(fs); i++ {
		if rank[fs[i].Category] < rank[fs[i-1].Category] {
			t.Errorf("finding %s (%s) after %s (%s); want speed, safety, information", fs[i].ID, fs[i].Category, fs[i-1].ID, fs[i-1].Category)
		}
	}
}

// TestAuditInsecureSuiteOnly audits an nginx whose only suite is one Go
// implements but does not offer by default: the first handshake must
// succeed, so that the server is audited rather than refused.
func TestAuditInsecureSuiteOnly(t *testing.T) {
	t.Parallel()
	rep := auditNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2;\nssl_ciphers AES128-SHA256:@SECLEVEL=0;"})
	if rep.Negotiated.Suite != "TLS_RSA_WITH_AES_128_CBC_SHA256" || findingByID(rep.Findings, "no-forward-secrecy") == nil {
		t.Errorf("negotiated %+v, findings %v; want TLS_RSA_WITH_AES_128_CBC_SHA256 and no-forward-secrecy", rep.Negotiated, ids(rep))
	}
	if rep.Negotiated.Group != "" {
		t.Errorf("negotiated group %q; want none for an RSA key exchange", rep.Negotiated.Group)
	}
}

// TestAuditHTTPFailsALPNChecked: a server whose HTTP/1.1 answer cannot be
// read (it requires a client certificate, so TLS 1.3 fails after the
// handshake) still offers h2 in ALPN: no http2-missing, no keep-alive or
// HTTP/3 findings from a response never read.
func TestAuditHTTPFailsALPNChecked(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // every handshake without a certificate fails
	srv.StartTLS()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	rep, err := Run(context.Background(), Config{Host: "127.0.0.1", Port: port, Trust: transport.Trust{RootCAs: pool}, Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Negotiated.ALPN != "h2" || slices.Contains(ids(rep), "http2-missing") || slices.Contains(ids(rep), "keepalive-off") {
		t.Errorf("ALPN %q, findings %v; want h2 and no http2-missing", rep.Negotiated.ALPN, ids(rep))
	}
	if checked(rep, "http") {
		t.Errorf("not checked %v; want the failed HTTP request listed", rep.NotChecked)
	}
}
