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
