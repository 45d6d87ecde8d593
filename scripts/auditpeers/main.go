// Command auditpeers starts a private lab nginx for scripts/audit-peers.sh,
// prints its HTTPS URL, plain URL and CA file on stdout, one per line, and
// serves until its standard input closes or it is interrupted.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/httpslab/httpslab/internal/lab"
)

func main() {
	tlsDirectives := flag.String("tls", "", "extra directives for the HTTPS server block")
	http2 := flag.Bool("http2", true, "enable HTTP/2")
	cert := flag.String("cert", "ecdsa-p256", "certificate key kind")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *tlsDirectives, *http2, *cert); err != nil {
		fmt.Fprintln(os.Stderr, "auditpeers:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, directives string, http2 bool, cert string) error {
	kind, err := lab.ParseKeyKind(cert)
	if err != nil {
		return err
	}
	n, err := lab.StartNginx(ctx, lab.NginxConfig{HTTP2: http2, Cert: kind, TLSDirectives: directives})
	if err != nil {
		return err
	}
	defer n.Close()
	fmt.Println(n.HTTPSURL)
	fmt.Println(n.HTTPURL)
	fmt.Println(filepath.Join(n.Dir, "ca.pem"))
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	select {
	case <-ctx.Done():
	case <-done:
	}
	return nil
}
