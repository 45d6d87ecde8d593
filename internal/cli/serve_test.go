package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServePrintsURLsAndServes runs "httpslab serve" in-process, reads the
// URLs it prints and fetches from them with the CA it wrote.
func TestServePrintsURLsAndServes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	caPath := t.TempDir() + "/ca.pem"
	pr, pw := io.Pipe()
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--ca-out", caPath, "--cert", "rsa-2048"}, pw, errW)
		pw.Close()
		errW.Close()
	}()
	go io.Copy(io.Discard, errR)
	sc := bufio.NewScanner(pr)
	var urls []string
	for len(urls) < 2 && sc.Scan() {
		urls = append(urls, sc.Text())
	}
	go io.Copy(io.Discard, pr)
	if len(urls) != 2 || !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(urls[0]) ||
		!regexp.MustCompile(`^https://127\.0\.0\.1:\d+$`).MatchString(urls[1]) {
		t.Fatalf("serve printed %q; want an http and an https URL", urls)
	}
	pem, err := os.ReadFile(caPath)
	if err != nil {
		t.Fatalf("reading the CA file: %v", err)
	}
	if fi, _ := os.Stat(caPath); fi.Mode().Perm() != 0o600 {
		t.Errorf("CA file mode = %v; want 0600", fi.Mode().Perm())
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	resp, err := c.Get(urls[1] + "/status/201")
	if err != nil {
		t.Fatalf("GET over HTTPS with the written CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.HasPrefix(resp.TLS.PeerCertificates[0].PublicKeyAlgorithm.String(), "RSA") {
		t.Errorf("status %d, key %v; want 201 from an RSA certificate", resp.StatusCode, resp.TLS.PeerCertificates[0].PublicKeyAlgorithm)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exited with %d after cancel; want 0", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop within 5s of cancel")
	}
}
