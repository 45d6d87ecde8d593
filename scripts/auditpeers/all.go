package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
)

// An outcome is what the three tools made of one target.
type outcome struct {
	tg                  target
	run                 *running
	dir                 string
	audit, sslscan, tsl toolRun
}

// toolRun is one tool's run: its wall time and its error, if it failed.
type toolRun struct {
	Took time.Duration
	Err  error
}

func (r toolRun) String() string {
	switch {
	case r.Err != nil:
		return "failed"
	case r.Took == 0:
		return "-"
	}
	return fmt.Sprintf("%.3f", r.Took.Seconds())
}

// timed runs argv with its output in out (and out.err), and returns its
// wall time; anyStatus takes every exit status as success (testssl's is
// the sum of its checks' return codes), the file written decides.
func timed(ctx context.Context, out string, env []string, anyStatus bool, argv ...string) toolRun {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	stdout, err := os.Create(out)
	if err != nil {
		return toolRun{Err: err}
	}
	defer stdout.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Env = stdout, &stderr, append(os.Environ(), env...)
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	_ = os.WriteFile(out+".err", stderr.Bytes(), 0o600)
	if err != nil && (!anyStatus || ctx.Err() != nil) {
		return toolRun{Took: took, Err: fmt.Errorf("%s: %v: %s", argv[0], err, shorten(strings.TrimSpace(stderr.String()), 300))}
	}
	return toolRun{Took: took}
}

// testsslVulnFlags are testssl's checks of each flaw: a fake is asked
// only what it was built for (its other handshakes are Go's TLS server).
var testsslVulnFlags = map[labtest.Vuln][]string{
	labtest.Heartbleed: {"--heartbleed"}, labtest.CCSInjection: {"--ccs-injection"}, labtest.Ticketbleed: {"--ticketbleed"},
	labtest.ROBOT: {"--robot"}, labtest.InsecureRenegotiation: {"--renegotiation"}, labtest.ClientRenegotiation: {"--renegotiation"},
	labtest.Compression: {"--crime"}, labtest.NoFallbackSCSV: {"--tls-fallback", "--poodle"}, labtest.SSLv2: {"--drown"},
	labtest.SSLv3: {"--poodle"},
}

// auditArgs are audit's arguments for a target: -k where the chain does
// not verify by design (audit reports that as a finding).
func (o *outcome) auditArgs(httpslab string) []string {
	args := []string{httpslab, "audit", "https://" + o.run.HostPort + "/", "--cacert", o.run.CAFile, "--json"}
	if slices.Contains([]string{"expired", "missing-intermediate", "wrong-name", "sha1-leaf"}, o.tg.Name) {
		args = append(args, "-k")
	}
	if o.run.PlainPort != "" {
		return append(args, "--http-port", o.run.PlainPort)
	}
	return append(args, "--http-port", "0")
}

func (o *outcome) runSSLScan(ctx context.Context) {
	o.sslscan = timed(ctx, o.file("sslscan.out"), nil, false, "sslscan", "--no-colour", "--xml="+o.file("sslscan.xml"), o.run.HostPort)
}

func (o *outcome) file(name string) string { return filepath.Join(o.dir, name) }

// runTestssl runs testssl on the target: its full default run on nginx,
// the flaw's own check on a fake, with OpenSSL at security level 0 so
// that its client can offer what the check needs.
func (o *outcome) runTestssl(ctx context.Context) {
	args := []string{"testssl", "--quiet", "--warnings", "batch", "--color", "0", "--add-ca", o.run.CAFile,
		"--openssl-timeout", "10", "--jsonfile", o.file("testssl.json")}
	var env []string
	if o.tg.Vuln != "" {
		args = append(args, testsslVulnFlags[o.tg.Vuln]...)
		conf := o.file("openssl.cnf")
		if err := os.WriteFile(conf, []byte(labtest.TestsslOpenSSLConf), 0o600); err != nil {
			o.tsl = toolRun{Err: err}
			return
		}
		env = []string{"OPENSSL_CONF=" + conf}
	}
	o.tsl = timed(ctx, o.file("testssl.out"), env, true, append(args, o.run.HostPort)...)
	if fi, err := os.Stat(o.file("testssl.json")); o.tsl.Err == nil && (err != nil || fi.Size() == 0) {
		o.tsl.Err = fmt.Errorf("testssl wrote no JSON: %s", shorten(readTail(o.file("testssl.out")), 300))
	}
}

func readTail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 1000 {
		b = b[len(b)-1000:]
	}
	return string(b)
}

// runAll runs every target (or those named) through the three tools and
// prints the times, the agreement of their inventories and the table of
// testssl's findings with audit's; it returns the exit status.
func runAll(args []string) int {
	fs := flag.NewFlagSet("all", flag.ContinueOnError)
	httpslab := fs.String("httpslab", "httpslab", "the httpslab binary")
	only := fs.String("targets", "", "comma-separated target names (default all)")
	noTestssl := fs.Bool("no-testssl", false, "leave testssl out")
	parallel := fs.Int("parallel", 3, "testssl runs at a time")
	dnsAddr := fs.String("dns", "", "serve labZone on this address, the nameserver of /etc/resolv.conf (in a network namespace of its own)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	all := targets()
	var chosen []target
	for _, tg := range all {
		if *only == "" || slices.Contains(strings.Split(*only, ","), tg.Name) {
			chosen = append(chosen, tg)
		}
	}
	if len(chosen) == 0 {
		fmt.Fprintf(os.Stderr, "auditpeers: no target named in %q\n", *only)
		return 2
	}
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, 60*time.Minute)
	defer cancel()
	for _, tg := range chosen {
		if tg.DNSName != "" && *dnsAddr == "" {
			fmt.Fprintf(os.Stderr, "auditpeers: target %s is reached by the name %s, served only with -dns\n", tg.Name, tg.DNSName)
			return 2
		}
	}
	if *dnsAddr != "" {
		if err := serveZone(ctx, *dnsAddr); err != nil {
			fmt.Fprintln(os.Stderr, "auditpeers:", err)
			return 1
		}
	}
	root, err := os.MkdirTemp("", "auditpeers-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditpeers:", err)
		return 1
	}
	defer os.RemoveAll(root)
	var outs []*outcome
	defer func() {
		for _, o := range outs {
			o.run.Close()
		}
	}()
	// audit and sslscan one target at a time, so that their times are
	// not each other's load; then testssl, several at a time.
	for _, tg := range chosen {
		o := &outcome{tg: tg, dir: filepath.Join(root, tg.Name)}
		if err := os.Mkdir(o.dir, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "auditpeers:", err)
			return 1
		}
		if o.run, err = tg.start(ctx, o.dir, ""); err != nil {
			fmt.Fprintf(os.Stderr, "auditpeers: starting %s: %v\n", tg.Name, err)
			return 1
		}
		outs = append(outs, o)
		o.audit = timed(ctx, o.file("audit.json"), nil, false, o.auditArgs(*httpslab)...)
		if tg.Vuln == "" {
			o.runSSLScan(ctx)
		}
	}
	// sslscan waits up to two minutes on some fakes' answers: beside testssl.
	var wg sync.WaitGroup
	for _, o := range outs {
		if o.tg.Vuln != "" {
			wg.Go(func() { o.runSSLScan(ctx) })
		}
	}
	if !*noTestssl {
		// In the targets' order, nginx's (the longest runs) first.
		jobs := make(chan *outcome, len(outs))
		for _, o := range outs {
			jobs <- o
		}
		close(jobs)
		for range max(*parallel, 1) {
			wg.Go(func() {
				for o := range jobs {
					o.runTestssl(ctx)
				}
			})
		}
	}
	wg.Wait()
	return report(ctx, os.Stdout, outs, !*noTestssl)
}

// report prints the times and inventories per target, then one table of
// testssl's findings; it returns 1 when a tool failed or a difference or
// a finding audit misses has no known reason.
func report(ctx context.Context, w io.Writer, outs []*outcome, withTestssl bool) int {
	problems := 0
	fmt.Fprintf(w, "%-22s %9s %9s %9s  %s\n", "target", "audit s", "sslscan s", "testssl s", "versions, suites, groups; resumption, OCSP, HSTS, key, chain")
	var details bytes.Buffer
	for _, o := range outs {
		verdict := "agrees"
		for _, r := range []toolRun{o.audit, o.sslscan, o.tsl} {
			if r.Err != nil {
				problems++
				fmt.Fprintf(&details, "%s: %v\n", o.tg.Name, r.Err)
				verdict = "a tool failed"
			}
		}
		if verdict == "agrees" && o.tg.Vuln != "" {
			// A fake answers the ClientHellos of its flaw by hand, whatever
			// they offer: its inventory is not a server's.
			verdict = "(a fake: inventories not compared)"
		}
		if verdict == "agrees" {
			var buf bytes.Buffer
			if n, err := compareFiles(ctx, &buf, o, withTestssl); err != nil || n > 0 {
				problems++
				verdict = "DIFFERS (below)"
				fmt.Fprintf(&details, "%s:\n%s", o.tg.Name, buf.String())
				if err != nil {
					fmt.Fprintf(&details, "%v\n", err)
				}
			} else if strings.Contains(buf.String(), "explained:") {
				verdict = "agrees, with an explained difference (below)"
				fmt.Fprintf(&details, "%s:\n%s", o.tg.Name, buf.String())
			}
		}
		fmt.Fprintf(w, "%-22s %9s %9s %9s  %s\n", o.tg.Name, o.audit, o.sslscan, o.tsl, verdict)
	}
	if details.Len() > 0 {
		fmt.Fprintf(w, "\n%s", details.String())
	}
	problems += checkOrders(ctx, w, outs)
	if !withTestssl {
		return min(problems, 1)
	}
	fmt.Fprintf(w, "\n%-22s %-22s %-9s %-40s %s\n", "target", "testssl finding", "severity", "testssl says", "audit")
	for _, o := range outs {
		if o.audit.Err != nil || o.tsl.Err != nil {
			continue
		}
		vs, err := targetVerdicts(ctx, o)
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", o.tg.Name, err)
			problems++
			continue
		}
		for _, v := range vs {
			a, miss := v.cell()
			if miss {
				problems++
			}
			fmt.Fprintf(w, "%-22s %-22s %-9s %-40s %s\n", o.tg.Name, v.ID, v.Severity, shorten(v.Finding, 40), a)
		}
	}
	return min(problems, 1)
}

// compareFiles compares the tools' inventories and facts of one target,
// printing to w, and returns the number of differences. Where a peer
// lacks groups audit found, or disagrees on TLS 1.2 resumption, openssl
// s_client is asked, and a difference it settles for audit is explained.
func compareFiles(ctx context.Context, w io.Writer, o *outcome, withTestssl bool) (int, error) {
	audit, err := fromAudit(o.file("audit.json"))
	if err != nil {
		return 0, err
	}
	version := "-tls1_2"
	if slices.Contains(audit.Versions, "TLS 1.3") {
		version = "-tls1_3"
	}
	confirm := func(ids []uint16) (string, bool) { return confirmGroups(ctx, o.run.HostPort, version, ids) }
	peers := map[string]inventory{}
	if peers["sslscan"], err = fromSSLScan(o.file("sslscan.xml")); err != nil {
		return 0, err
	}
	if !withTestssl {
		return compare(w, audit, peers, confirm), nil
	}
	if peers["testssl"], err = fromTestssl(o.file("testssl.json")); err != nil {
		return 0, err
	}
	n := compare(w, audit, peers, confirm)
	a, err := fromAuditFacts(o.file("audit.json"))
	if err != nil {
		return n, err
	}
	b, err := fromTestsslFacts(o.file("testssl.json"))
	if err != nil {
		return n, err
	}
	for _, q := range []struct {
		name   string
		a, b   **bool
		ticket bool
	}{{"session ID", &a.SessionID, &b.SessionID, false}, {"ticket", &a.Ticket, &b.Ticket, true}} {
		if *q.a == nil || *q.b == nil || **q.a == **q.b {
			continue
		}
		if seen, reused := confirmResumption(ctx, o.run.HostPort, o.dir, q.ticket); reused == **q.a {
			fmt.Fprintf(w, "          explained: testssl's TLS 1.2 resumption by %s is wrong: %s\n", q.name, seen)
			*q.b = *q.a
		}
	}
	return n + compareFacts(w, a, b), nil
}

// checkOrders checks audit's TLS 1.2 suite order (server's, or the
// client's: cipher-order-client) on each nginx target with openssl
// s_client, and returns the number of contradictions.
func checkOrders(ctx context.Context, w io.Writer, outs []*outcome) int {
	names, err := opensslSuiteNames(ctx)
	if err != nil {
		fmt.Fprintf(w, "\n%v\n", err)
		return 1
	}
	fmt.Fprintf(w, "\nTLS 1.2 suite order, audit's against openssl s_client's:\n")
	n := 0
	for _, o := range outs {
		if o.tg.Vuln == "" && o.audit.Err == nil {
			n += checkOrder(ctx, w, o, names)
		}
	}
	return n
}
