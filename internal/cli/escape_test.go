package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
)

// TestServerStringsEscaped: a certificate whose subject holds terminal
// escapes (a window title, a colour) and a CR LF before "Injected: line"
// reaches the terminal escaped in the waterfall's chain block, in -w
// '%{certs}', in audit's text and in error texts (they printed it raw:
// the title changed and a forged line appeared); --json keeps the exact
// value.
func TestServerStringsEscaped(t *testing.T) {
	s := labtest.NewMisbehaving(t, labtest.HostileCert)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := s.CA.WriteFile(ca); err != nil {
		t.Fatal(err)
	}
	url := "https://" + s.Addr + "/"
	forged := regexp.MustCompile(`(?m)^Injected: line`)
	for _, args := range [][]string{
		{"probe", url, "--cacert", ca, "--http1.1"},
		{"probe", url, "--cacert", ca, "--http1.1", "-s", "-w", "%{certs}"},
		{"probe", url, "-k", "--http1.1"},
		{"audit", s.Addr, "--cacert", ca, "--attempts", "2"},
	} {
		_, stdout, stderr := run(t, context.Background(), args...)
		out := stdout + stderr
		if strings.ContainsAny(out, "\x1b\x07\r") || forged.MatchString(out) {
			t.Errorf("%v printed the server's control characters raw:\n%q", args, out)
		}
		// (the subject's text is Go's pkix.Name form, which writes ';' as '\;')
		if args[0] == "probe" && !strings.Contains(out, `pwned\x07\x1b[31m\r\nInjected: line`) {
			t.Errorf("%v does not show the subject escaped:\n%s", args, out)
		}
	}
	_, stdout, _ := run(t, context.Background(), "probe", url, "--cacert", ca, "--http1.1", "--json")
	if !strings.Contains(stdout, `pwned\u0007\u001b[31m\r\nInjected: line`) {
		t.Errorf("probe --json does not keep the exact subject:\n%s", stdout)
	}
}
