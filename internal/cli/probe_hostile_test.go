package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
)

// TestProbeCloseHint: a server that closes the connection after the TLS
// handshake (or after a plain connect) gets the hint for a close without
// an answer, not the one about TLS versions and suites, which fits a
// close during the handshake only.
func TestProbeCloseHint(t *testing.T) {
	for _, mode := range []labtest.Mode{labtest.TLS(labtest.CloseAfterRequest), labtest.CloseAfterRequest} {
		s := labtest.NewMisbehaving(t, mode)
		args := []string{"probe", s.URL(), "--http1.1"}
		if s.CA != nil {
			ca := filepath.Join(t.TempDir(), "ca.pem")
			if err := s.CA.WriteFile(ca); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--cacert", ca)
		}
		code, _, stderr := run(t, context.Background(), args...)
		if code != ExitFailure || !strings.Contains(stderr, "hint: the server closed the connection without an answer, after the connection was set up") ||
			strings.Contains(stderr, "cipher") {
			t.Errorf("probe against %s = %d, %q; want the hint for a close after the connection was set up", mode, code, stderr)
		}
	}
}

// TestProbeHeaderCRLF: a -H value with CR LF is refused before anything
// is dialed (it was refused after the connection and its handshake).
func TestProbeHeaderCRLF(t *testing.T) {
	s := labtest.NewMisbehaving(t, labtest.Silent)
	code, _, stderr := run(t, context.Background(), "probe", s.URL(), "-H", "X-A: a\r\nInjected: b")
	if code != ExitUsage || !strings.Contains(stderr, "control characters (CR, LF) are not allowed") {
		t.Errorf("probe -H with CR LF = %d, %q; want %d and the header refused", code, stderr, ExitUsage)
	}
	if s.Accepted() != 0 {
		t.Errorf("the server accepted %d connections; want none", s.Accepted())
	}
}
