// Command auditpeers is the helper of scripts/audit-peers.sh.
//
//	auditpeers [-tls DIRECTIVES] [-cert KIND] [-http2=false] [-host ADDR] [-chain incomplete]
//	auditpeers -target NAME [-host ADDR]
//	auditpeers -list
//
// starts a private lab nginx (on 127.0.0.1, or ADDR) whose HTTPS block has the given directives
// (with -chain incomplete, serving a leaf of an intermediate CA without that intermediate)
// and none of the lab's default ssl_* lines (so that the tools are compared
// on exactly what the directives say), or one target of the comparison
// (see targets.go; those reached by a DNS name are not served alone), prints its HTTPS URL, plain URL and
// CA file on stdout, one per line, and serves until its standard input
// closes or it is interrupted.
//
//	auditpeers all [-httpslab BIN] [-targets NAME,...] [-no-testssl] [-parallel N] [-dns ADDR]
//
// starts every target of the comparison (twelve nginx configurations, two
// of them reached by names of labZone that its DNS server on ADDR serves,
// and a server for each known TLS flaw, see targets.go), runs httpslab audit and
// sslscan on each, one at a time, then testssl, N at a time, and prints
// each tool's time per target, whether their inventories and facts agree,
// whether openssl s_client finds the TLS 1.2 suite order audit found, and
// one table of every finding testssl makes (LOW and above) with
// audit's finding for it, or the openssl s_client command that shows
// testssl wrong there, or why audit could not measure it.
//
//	auditpeers compare AUDIT.json SSLSCAN.xml [TESTSSL.json]
//
// compares the versions, cipher suites and groups that httpslab audit,
// sslscan and testssl report, and with testssl also session resumption by
// ID and ticket, OCSP stapling, the HSTS max-age, the leaf key and the
// chain, then the table of testssl's findings (LOW and above) with
// audit's finding for each; it exits 1 when they differ for no known
// reason (known ones are printed as explained), or when audit does not
// make a finding testssl makes that audit has a check for.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/lab"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		os.Exit(runCompare(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == "all" {
		os.Exit(runAll(os.Args[2:]))
	}
	tlsDirectives := flag.String("tls", defaultDirectives, "the ssl_* directives of the HTTPS server block")
	http2 := flag.Bool("http2", true, "enable HTTP/2")
	cert := flag.String("cert", "ecdsa-p256", "certificate key kind")
	host := flag.String("host", "", "the address to listen on (default 127.0.0.1)")
	chain := flag.String("chain", "", `"incomplete": a leaf of an intermediate CA, served without the intermediate`)
	name := flag.String("target", "", "serve this target of the comparison instead")
	list := flag.Bool("list", false, "print the names of the targets -target serves")
	flag.Parse()
	if *list {
		fmt.Println(strings.Join(servedAlone(), "\n"))
		return
	}
	if *name != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := serveTarget(ctx, *name, *host); err != nil {
			fmt.Fprintln(os.Stderr, "auditpeers:", err)
			os.Exit(1)
		}
		return
	}
	if *chain != "" && *chain != "incomplete" {
		fmt.Fprintf(os.Stderr, "auditpeers: -chain %q: want incomplete\n", *chain)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *tlsDirectives, *http2, *cert, *host, *chain == "incomplete"); err != nil {
		fmt.Fprintln(os.Stderr, "auditpeers:", err)
		os.Exit(1)
	}
}

// defaultDirectives are nginx's TLS 1.2 and 1.3 with a session cache, the
// lab's defaults written out.
const defaultDirectives = "ssl_protocols TLSv1.2 TLSv1.3;\nssl_session_cache shared:peers:1m;"

func run(ctx context.Context, directives string, http2 bool, cert, host string, incomplete bool) error {
	kind, err := lab.ParseKeyKind(cert)
	if err != nil {
		return err
	}
	n, err := lab.StartNginx(ctx, lab.NginxConfig{HTTP2: http2, Cert: kind, TLSDirectives: directives, NoDefaults: true, Host: host,
		Intermediate: incomplete, OmitIntermediate: incomplete})
	if err != nil {
		return err
	}
	defer n.Close()
	fmt.Println(n.HTTPSURL)
	fmt.Println(n.HTTPURL)
	fmt.Println(filepath.Join(n.Dir, "ca.pem"))
	serveUntilStdinCloses(ctx)
	return nil
}

// serveTarget starts the named target on host, prints its
// URLs and CA file as run does, and serves as long as run would.
func serveTarget(ctx context.Context, name, host string) error {
	var tg target
	for _, t := range targets() {
		if t.Name == name && t.DNSName == "" {
			tg = t
		}
	}
	if tg.Name == "" {
		return fmt.Errorf("-target %q: want one of %s", name, strings.Join(servedAlone(), ", "))
	}
	dir, err := os.MkdirTemp("", "auditpeers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r, err := tg.start(ctx, dir, host)
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Println("https://" + r.HostPort)
	if r.PlainPort != "" {
		fmt.Println("http://" + net.JoinHostPort(hostOr(host), r.PlainPort))
	} else {
		fmt.Println("-")
	}
	fmt.Println(r.CAFile)
	serveUntilStdinCloses(ctx)
	return nil
}

// servedAlone names the targets -target serves: all but those reached by
// a DNS name.
func servedAlone() []string {
	var names []string
	for _, t := range targets() {
		if t.DNSName == "" {
			names = append(names, t.Name)
		}
	}
	return names
}

func hostOr(host string) string {
	if host == "" {
		return "127.0.0.1"
	}
	return host
}

// serveUntilStdinCloses returns when standard input closes or ctx ends.
func serveUntilStdinCloses(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	select {
	case <-ctx.Done():
	case <-done:
	}
}

func runCompare(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: auditpeers compare AUDIT.json SSLSCAN.xml [TESTSSL.json]")
		return 2
	}
	audit, err := fromAudit(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "auditpeers:", err)
		return 1
	}
	peers := map[string]inventory{}
	if peers["sslscan"], err = fromSSLScan(args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "auditpeers:", err)
		return 1
	}
	if len(args) > 2 {
		if peers["testssl"], err = fromTestssl(args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "auditpeers:", err)
			return 1
		}
	}
	diffs := compare(os.Stdout, audit, peers, nil)
	if len(args) > 2 {
		a, errA := fromAuditFacts(args[0])
		b, errB := fromTestsslFacts(args[2])
		if err := errors.Join(errA, errB); err != nil {
			fmt.Fprintln(os.Stderr, "auditpeers:", err)
			return 1
		}
		diffs += compareFacts(os.Stdout, a, b)
		missing, err := compareVerdicts(os.Stdout, args[0], args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "auditpeers:", err)
			return 1
		}
		diffs += missing
	}
	if diffs > 0 {
		return 1
	}
	return 0
}
