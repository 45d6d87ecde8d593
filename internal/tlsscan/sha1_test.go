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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/transport"
)

// TestSHA1Leaf: a leaf signed with SHA-1 by a trusted CA is reported as
// cert-weak-signature only: crypto/x509 refuses the signature while it
// looks for the issuer, which is neither an unknown CA (cert-untrusted)
// nor an incomplete chain. openssl makes the certificate: Go signs no
// certificate with SHA-1.
func TestSHA1Leaf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(file("ext"), []byte("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", file("ca.key"), "-out", file("ca.pem"),
			"-subj", "/CN=httpslab SHA-1 test CA", "-days", "30", "-addext", "basicConstraints=critical,CA:true", "-addext", "keyUsage=keyCertSign"},
		{"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", file("leaf.key"), "-out", file("leaf.csr"),
			"-subj", "/CN=127.0.0.1"},
		{"x509", "-req", "-in", file("leaf.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-set_serial", "0x5f3a9c0e1d2b4a6879c1e3f5a7b9d1e3",
			"-sha1", "-days", "20", "-extfile", file("ext"), "-out", file("leaf.pem")},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	cert, err := tls.LoadX509KeyPair(file("leaf.pem"), file("leaf.key"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	caPEM, err := os.ReadFile(file("ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	cfg := Config{Host: "127.0.0.1", Port: port, Trust: transport.Trust{RootCAs: pool}, Attempts: 2}
	_, err = Run(context.Background(), cfg)
	if hint := Hint(err, cfg); err == nil || !strings.Contains(hint, "SHA-1") || !strings.Contains(hint, "cert-weak-signature") {
		t.Errorf("audit without -k = %v, hint %q; want the SHA-1 signature named", err, hint)
	}
	cfg.Trust.Insecure = true
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := ids(rep)
	if !slices.Contains(got, "cert-weak-signature") || slices.Contains(got, "cert-untrusted") || slices.Contains(got, "chain-incomplete") {
		t.Errorf("findings %v (verify error %q); want cert-weak-signature alone of the three", got, rep.Chain.VerifyError)
	}
}
