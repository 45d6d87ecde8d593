//go:build !race

package tlsscan

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// testsslCheck is testssl's option for the check of each flaw and the id
// of its verdict in testssl's JSON.
var testsslCheck = map[labtest.Vuln]struct{ flag, id string }{
	labtest.Heartbleed:   {"--heartbleed", "heartbleed"},
	labtest.CCSInjection: {"--ccs-injection", "CCS"},
	labtest.Ticketbleed:  {"--ticketbleed", "ticketbleed"},
	labtest.Compression:  {"--crime", "CRIME_TLS"},
	// testssl rates a missing SCSV by whether POODLE applies too.
	labtest.NoFallbackSCSV: {"--tls-fallback --poodle", "fallback_SCSV"},
	labtest.SSLv2:          {"--drown", "DROWN"},
	labtest.SSLv3:          {"--poodle", "POODLE_SSL"},
}

const testsslOpenSSLConf = `openssl_conf = openssl_init
[openssl_init]
ssl_conf = ssl_sect
[ssl_sect]
system_default = system_default_sect
[system_default_sect]
MinProtocol = TLSv1
CipherString = DEFAULT@SECLEVEL=0
`

// testsslFinding is one entry of testssl's --jsonfile output.
type testsslFinding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Finding  string `json:"finding"`
}

// runTestssl runs testssl with the given checks against hostport and
// returns its verdicts by id.
func runTestssl(t *testing.T, hostport string, flags ...string) map[string]testsslFinding {
	t.Helper()
	out := filepath.Join(t.TempDir(), "testssl.json")
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	args := []string{"--warnings", "off", "--quiet", "--color", "0", "--openssl-timeout", "10", "--jsonfile", out}
	for _, f := range flags {
		args = append(args, strings.Fields(f)...)
	}
	cmd := exec.CommandContext(ctx, "testssl", append(args, hostport)...)
	cmd.Dir = t.TempDir()
	// Debian's OpenSSL 3 refuses TLS 1.0 and 1.1 at its default security
	// level, so testssl could not try a fallback to them: its client gets
	// level 0 and TLS 1.0 as the floor, as testssl's own OpenSSL build has.
	conf := filepath.Join(cmd.Dir, "openssl.cnf")
	if err := os.WriteFile(conf, []byte(testsslOpenSSLConf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "OPENSSL_CONF="+conf)
	text, err := cmd.CombinedOutput()
	data, readErr := os.ReadFile(out)
	if readErr != nil {
		t.Fatalf("testssl %v: %v, no JSON (%v)\n%s", flags, err, readErr, text)
	}
	var fs []testsslFinding
	if err := json.Unmarshal(data, &fs); err != nil {
		t.Fatalf("testssl JSON: %v\n%s", err, data)
	}
	byID := map[string]testsslFinding{}
	for _, f := range fs {
		byID[f.ID] = f
	}
	return byID
}

// flagged reports whether testssl rates a verdict as a problem.
func flagged(f testsslFinding) bool {
	return slices.Contains([]string{"LOW", "MEDIUM", "HIGH", "CRITICAL"}, f.Severity)
}

// TestVulnServersAgreeWithTestssl runs testssl's own check of each flaw
// against the server that has it, so that a server which only shares a
// mistake of audit's check is caught: testssl must flag each, as audit
// does (TestVulnChecksFindEachFlaw). On Debian's nginx neither flags
// anything.
func TestVulnServersAgreeWithTestssl(t *testing.T) {
	if _, err := exec.LookPath("testssl"); err != nil {
		t.Skip("testssl is not installed (scripts/test.sh installs it)")
	}
	for _, v := range labtest.Vulns {
		c, ok := testsslCheck[v]
		if !ok {
			continue
		}
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			s := labtest.StartVulnServer(t, v)
			got := runTestssl(t, s.Addr, c.flag)
			f, ok := got[c.id]
			if !ok || !flagged(f) {
				t.Errorf("testssl %s: %s is %q (%s); want it flagged", c.flag, c.id, f.Severity, f.Finding)
			}
		})
	}
	t.Run("nginx", func(t *testing.T) {
		t.Parallel()
		n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: `
ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
ssl_ciphers ALL:@SECLEVEL=0;
ssl_session_tickets on;`})
		u, _ := url.Parse(n.HTTPSURL)
		var flags []string
		for _, c := range testsslCheck {
			flags = append(flags, c.flag)
		}
		slices.Sort(flags)
		got := runTestssl(t, u.Host, flags...)
		for _, c := range testsslCheck {
			if f, ok := got[c.id]; !ok || flagged(f) {
				t.Errorf("testssl on nginx: %s is %q (%s); want it checked and not flagged", c.id, f.Severity, f.Finding)
			}
		}
	})
}
