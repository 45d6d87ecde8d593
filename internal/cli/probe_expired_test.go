package cli

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestProbeExpiredCertificate: a certificate past its NotAfter fails
// verification by default, with the hint about clocks and -k; -k reaches
// the server.
func TestProbeExpiredCertificate(t *testing.T) {
	ca, caFile := testCA(t)
	addr := tlsServer(t, ca, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour), "127.0.0.1")
	url := "https://" + addr + "/"
	code, _, stderr := run(t, context.Background(), "probe", "-s", url, "--cacert", caFile)
	if code != ExitFailure || !strings.Contains(stderr, "expired") || !strings.Contains(stderr, "hint: the certificate has expired or is not yet valid") {
		t.Errorf("probe of an expired certificate = %d, stderr %q; want %d and the expiry hint", code, stderr, ExitFailure)
	}
	if code, _, stderr := run(t, context.Background(), "probe", "-s", url, "-k"); code != ExitOK {
		t.Errorf("probe -k of an expired certificate = %d; want %d\n%s", code, ExitOK, stderr)
	}
}

// TestProbeVerifyResult: %{ssl_verify_result} is OpenSSL's code for the
// chain, as curl gives it: 10 for an expired certificate whether the
// handshake failed on it or -k let it pass, 20 for an issuer that is not
// trusted, 0 for a chain that verifies with -k too.
func TestProbeVerifyResult(t *testing.T) {
	ca, caFile := testCA(t)
	expired := "https://" + tlsServer(t, ca, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour), "127.0.0.1") + "/"
	valid := "https://" + tlsServer(t, ca, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour), "127.0.0.1") + "/"
	tests := []struct {
		name string
		args []string
		want string // ssl_verify_result exitcode
		code int
	}{
		{"expired", []string{expired, "--cacert", caFile}, "10 60", ExitFailure},
		{"expired, -k", []string{expired, "--cacert", caFile, "-k"}, "10 0", ExitOK},
		{"unknown issuer, -k", []string{valid, "-k"}, "20 0", ExitOK},
		{"valid, -k", []string{valid, "--cacert", caFile, "-k"}, "0 0", ExitOK},
		{"valid", []string{valid, "--cacert", caFile}, "0 0", ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"probe", "-s", "-w", "%{ssl_verify_result} %{exitcode}"}, tt.args...)
			code, stdout, stderr := run(t, context.Background(), args...)
			if code != tt.code || stdout != tt.want {
				t.Errorf("probe %q = %d, %q; want %d, %q\nstderr:\n%s", tt.args, code, stdout, tt.code, tt.want, stderr)
			}
		})
	}
	_, stdout, _ := run(t, context.Background(), "probe", expired, "-k")
	if !strings.Contains(stdout, "verified      no (-k; without it the check fails: x509: certificate has expired") {
		t.Errorf("the waterfall of an expired certificate with -k does not say the check would fail:\n%s", stdout)
	}
}
