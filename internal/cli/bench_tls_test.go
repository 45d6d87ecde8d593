package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// testCA makes a private CA and writes its certificate to a file, for
// --cacert.
func testCA(t *testing.T) (*lab.CA, string) {
	t.Helper()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := ca.WriteFile(file); err != nil {
		t.Fatal(err)
	}
	return ca, file
}

// tlsServer starts an HTTPS server whose certificate, issued by ca, is
// valid from notBefore to notAfter for the names given.
func tlsServer(t *testing.T, ca *lab.CA, notBefore, notAfter time.Time, names ...string) string {
	t.Helper()
	leaf, err := ca.IssueValid(lab.ECDSAP256, notBefore, notAfter, names...)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf.TLS}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).String()
}

// TestBenchTLSErrors checks that certificates that do not verify fail
// every request with verification on by default, and that the hint
// names the actual problem: an unknown CA, an expired certificate, a
// name the certificate does not hold.
func TestBenchTLSErrors(t *testing.T) {
	ca, caFile := testCA(t)
	now := time.Now()
	valid := tlsServer(t, ca, now.Add(-time.Hour), now.Add(time.Hour), "good.test")
	expired := tlsServer(t, ca, now.Add(-48*time.Hour), now.Add(-24*time.Hour), "old.test")
	_, vp, _ := net.SplitHostPort(valid)
	_, ep, _ := net.SplitHostPort(expired)
	tests := []struct {
		args        []string
		error, hint string
		code        int
	}{
		{[]string{"https://good.test:" + vp + "/", "--resolve", "good.test:" + vp + ":127.0.0.1"},
			"x509: certificate signed by unknown authority", "not signed by a CA you trust (self-signed?); pass --cacert FILE or -k", ExitFailure},
		{[]string{"https://old.test:" + ep + "/", "--resolve", "old.test:" + ep + ":127.0.0.1", "--cacert", caFile},
			"certificate has expired", "has expired or is not yet valid", ExitFailure},
		{[]string{"https://" + valid + "/", "--cacert", caFile},
			"doesn't contain any IP SANs", "does not name this host", ExitFailure},
		{[]string{"https://bad.test:" + vp + "/", "--resolve", "bad.test:" + vp + ":127.0.0.1", "--cacert", caFile},
			"certificate is valid for good.test, not bad.test", "does not name this host", ExitFailure},
		{[]string{"https://good.test:" + vp + "/", "--resolve", "good.test:" + vp + ":127.0.0.1", "--cacert", caFile},
			"", "", ExitOK},
	}
	for _, tt := range tests {
		args := append([]string{"bench", "-n", "3", "-c", "1"}, tt.args...)
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), args, &stdout, &stderr)
		want := "3 completed, 0 failed"
		if tt.code != ExitOK {
			want = "0 completed, 3 failed"
		}
		if code != tt.code || !strings.Contains(stdout.String(), want) || !strings.Contains(stdout.String(), tt.error) ||
			!strings.Contains(stderr.String(), tt.hint) {
			t.Errorf("httpslab %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, %q and %q, hint %q",
				args, code, stdout.String(), stderr.String(), tt.code, want, tt.error, tt.hint)
		}
	}
}
