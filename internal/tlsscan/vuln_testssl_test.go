//go:build !race

package tlsscan

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// testsslCheck is testssl's option for the check of each flaw and the ids
// of its verdicts in testssl's JSON, space separated.
var testsslCheck = map[labtest.Vuln]struct{ flag, id string }{
	labtest.Heartbleed:            {"--heartbleed", "heartbleed"},
	labtest.CCSInjection:          {"--ccs-injection", "CCS"},
	labtest.Ticketbleed:           {"--ticketbleed", "ticketbleed"},
	labtest.ROBOT:                 {"--robot", "ROBOT"},
	labtest.InsecureRenegotiation: {"--renegotiation", "secure_renego secure_client_renego"},
	labtest.ClientRenegotiation:   {"--renegotiation", "secure_client_renego"},
	labtest.Compression:           {"--crime", "CRIME_TLS"},
	// testssl rates a missing SCSV by whether POODLE applies too.
	labtest.NoFallbackSCSV: {"--tls-fallback --poodle", "fallback_SCSV"},
	labtest.SSLv2:          {"--drown", "DROWN"},
	labtest.SSLv3:          {"--poodle", "POODLE_SSL"},
}

// testsslFinding is one entry of testssl's --jsonfile output.
type testsslFinding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Finding  string `json:"finding"`
}

// runTestssl runs testssl with the given checks against hostport and
// returns its verdicts by id.
func runTestssl(ctx context.Context, dir, hostport string, flags ...string) (map[string]testsslFinding, error) {
	out := filepath.Join(dir, "testssl.json")
	args := []string{"--warnings", "off", "--quiet", "--color", "0", "--nodns", "none", "--openssl-timeout", "10", "--jsonfile", out}
	for _, f := range flags {
		args = append(args, strings.Fields(f)...)
	}
	cmd := exec.CommandContext(ctx, "testssl", append(args, hostport)...)
	cmd.Dir = dir
	// OpenSSL at level 0, as testssl's own build has (see labtest).
	conf := filepath.Join(dir, "openssl.cnf")
	if err := os.WriteFile(conf, []byte(labtest.TestsslOpenSSLConf), 0o600); err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), "OPENSSL_CONF="+conf)
	text, err := cmd.CombinedOutput()
	data, readErr := os.ReadFile(out)
	if readErr != nil {
		return nil, fmt.Errorf("testssl %v: %v, no JSON (%v)\n%s", flags, err, readErr, text)
	}
	var fs []testsslFinding
	if err := json.Unmarshal(data, &fs); err != nil {
		return nil, fmt.Errorf("testssl JSON: %v\n%s", err, data)
	}
	byID := map[string]testsslFinding{}
	for _, f := range fs {
		byID[f.ID] = f
	}
	return byID, nil
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
	type run struct {
		name, hostport string
		flags          []string
		ids            []string // the verdicts to read
		got            map[string]testsslFinding
		err            error
	}
	var runs []*run
	for _, v := range labtest.Vulns {
		c := testsslCheck[v]
		s := labtest.StartVulnServer(t, v)
		runs = append(runs, &run{name: string(v), hostport: s.Addr, flags: []string{c.flag}, ids: strings.Fields(c.id)})
	}
	n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: `
ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
ssl_ciphers ALL:@SECLEVEL=0;
ssl_session_tickets on;`})
	u, _ := url.Parse(n.HTTPSURL)
	all := &run{name: "nginx", hostport: u.Host}
	for _, c := range testsslCheck {
		all.flags, all.ids = append(all.flags, strings.Fields(c.flag)...), append(all.ids, strings.Fields(c.id)...)
	}
	slices.Sort(all.flags)
	all.flags = slices.Compact(all.flags)
	runs = append(runs, all)
	// A testssl run takes 10 to 40 s, a third of it on the CPU and the
	// rest waiting: six runs at a time, the longest (nginx) first.
	slices.Reverse(runs)
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	sem := make(chan struct{}, 6)
	var wg sync.WaitGroup
	for _, r := range runs {
		dir := t.TempDir()
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			r.got, r.err = runTestssl(ctx, dir, r.hostport, r.flags...)
			t.Logf("testssl %v on %s: %v", r.flags, r.name, time.Since(start).Round(time.Second))
		})
	}
	wg.Wait()
	for _, r := range runs {
		if r.err != nil {
			t.Errorf("%s: %v", r.name, r.err)
			continue
		}
		for _, id := range r.ids {
			f, ok := r.got[id]
			if want := r != all; !ok || flagged(f) != want {
				t.Errorf("testssl %v on %s: %s is %q (%s); want flagged %v", r.flags, r.name, id, f.Severity, f.Finding, want)
			}
		}
	}
}
