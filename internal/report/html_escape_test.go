package report_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/csv"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/cli"
)

// hostile is markup and a spreadsheet formula, as a server may send them.
const hostile = `=cmd|' /C calc'!A0<script>alert(1)</script><img src=x onerror=alert(2)>`

// hostileServer serves HTTPS with a certificate whose subject holds
// hostile (its common name and organisation), and answers with hostile
// in its Server and X-Note headers. It returns the URL and the
// certificate's file, which verifies it.
func hostileServer(t *testing.T) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1),
		Subject:   pkix.Name{CommonName: hostile, Organization: []string{hostile}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, BasicConstraintsValid: true, IsCA: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Server", hostile)
		w.Header().Set("X-Note", hostile)
		w.Write([]byte("ok"))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv.URL + "/", ca
}

// TestHostileStringsEscaped probes a real server whose certificate
// subject and headers hold markup and a formula, and checks the HTML
// report (--html) and the CSV (--csv) that probe writes: the strings are
// shown, as text, and the CSV cell that starts with = starts with an
// apostrophe; the page stays under its policy.
func TestHostileStringsEscaped(t *testing.T) {
	u, ca := hostileServer(t)
	page := filepath.Join(t.TempDir(), "probe.html")
	var stdout, stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"probe", "--cacert", ca, "--csv", "--html", page, u}, &stdout, &stderr); code != cli.ExitOK {
		t.Fatalf("probe = %d; stderr:\n%s", code, stderr.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	checkOffline(t, "the report of a hostile server", html)
	for _, raw := range []string{"<script", "<img", "onerror=alert(2)>"} {
		if strings.Contains(html, raw) {
			t.Errorf("the report holds %q unescaped", raw)
		}
	}
	escaped := "=cmd|&#39; /C calc&#39;!A0&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"
	for _, w := range []string{`<th scope="row">X-Note</th><td class="text">` + escaped + `</td>`, `<th scope="row">Server</th>`,
		"subject CN=" + strings.NewReplacer("&lt;", `\&lt;`, "&gt;", `\&gt;`).Replace(escaped)} {
		if !strings.Contains(html, w) {
			t.Errorf("the report does not show %q", w)
		}
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("probe --csv: %d rows, %v; want a header and one hop:\n%s", len(rows), err, stdout.String())
	}
	cell := map[string]string{}
	for i, h := range rows[0] {
		cell[h] = rows[1][i]
	}
	if got := cell["server"]; got != "'"+hostile {
		t.Errorf("CSV server cell %q; want %q, the formula behind an apostrophe", got, "'"+hostile)
	}
	if got := cell["cert_subject"]; !strings.HasPrefix(got, "CN=") || !strings.Contains(got, `\<script\>`) {
		t.Errorf("CSV cert_subject cell %q; want the subject as the certificate names it", got)
	}
}
