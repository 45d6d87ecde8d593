package cli

import (
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	s         embedded.Flags
	writeSite string
	link      linkFlags
}

func newServeCmd(e *env) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded HTTP, HTTPS and HTTP/3 target server",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return e.runServe(f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.s.Host, "host", "127.0.0.1", "address to listen on (loopback)")
	fl.IntVar(&f.s.HTTPPort, "http-port", 0, "plain HTTP port (0: a free one)")
	fl.IntVar(&f.s.HTTPSPort, "https-port", 0, "HTTPS port, also HTTP/3 over UDP (0: a free one)")
	fl.StringVar(&f.s.Cert, "cert", "ecdsa-p256", "certificate key: ecdsa-p256, ecdsa-p384, rsa-2048, rsa-4096")
	fl.StringVar(&f.s.TLSMin, "tls-min", "1.2", "lowest TLS version offered")
	fl.StringVar(&f.s.TLSMax, "tls-max", "1.3", "highest TLS version offered (below 1.3: no HTTP/3, which needs TLS 1.3)")
	fl.BoolVar(&f.s.NoTickets, "no-tickets", false, "turn session tickets, and so resumption, off")
	fl.BoolVar(&f.s.No0RTT, "no-0rtt", false, "refuse 0-RTT early data on HTTP/3")
	fl.BoolVar(&f.s.NoHTTP3, "no-http3", false, "do not listen for HTTP/3")
	fl.BoolVar(&f.s.NoHSTS, "no-hsts", false, "leave out the Strict-Transport-Security header")
	fl.StringVar(&f.s.CAOut, "ca-out", "", "write the CA certificate here (default: a private temporary file)")
	fl.StringVar(&f.s.CertFile, "cert-file", "", "serve this certificate chain (PEM), as nginx's ssl_certificate, instead of a new one: the same at every start")
	fl.StringVar(&f.s.KeyFile, "key-file", "", "the private key (PEM) of --cert-file, as nginx's ssl_certificate_key")
	fl.StringVar(&f.writeSite, "write-site", "", "write the /page/ test pages as static files under `dir` for another server, and exit")
	f.link.add(fl)
	return cmd
}

func (e *env) runServe(f serveFlags) error {
	if f.writeSite != "" {
		if err := lab.WriteSite(f.writeSite); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", f.writeSite)
		return nil
	}
	// A hang-up (the terminal closed, an ssh session ended) stops serve
	// as Ctrl-C does: uncaught, it would end the process at once and
	// leave the link's namespace and the private CA directory behind.
	hup, stop := signal.NotifyContext(e.ctx, syscall.SIGHUP)
	defer stop()
	f.s.CertGiven = f.link.fs.Changed("cert")
	cfg, err := f.s.ServerConfig()
	if err != nil {
		return err
	}
	if f.link.set() && f.link.fs.Changed("host") {
		return usagef("--host and the link flags exclude each other: behind a link the server listens on its address there")
	}
	srv, err := e.startEmbedded(f.link, cfg)
	if errors.Is(err, lab.ErrHTTP3Port) && errors.Is(err, syscall.EADDRINUSE) {
		return withHint(err, "HTTP/3 needs the HTTPS port number free over UDP too: pick another --https-port, 0 for a free one, or --no-http3")
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return withHint(err, "pick other ports with --http-port and --https-port, or 0 for free ones")
	}
	if err != nil {
		return err
	}
	defer srv.Close()
	caPath, removeCA, err := saveCA(srv, f)
	if err != nil {
		return withHint(err, "give --ca-out a file in a directory you can write to, or leave it out for a private temporary file")
	}
	defer removeCA()
	fmt.Fprintln(e.stdout, srv.HTTPURL)
	fmt.Fprintln(e.stdout, srv.HTTPSURL)
	notes := srv.Notes(f.s.NoHTTP3)
	if caPath != "" {
		notes = append(notes, "CA certificate: "+caPath)
	} else {
		notes = append(notes, "certificate: "+f.s.CertFile)
	}
	notes = append(notes, "Ctrl-C stops")
	fmt.Fprintf(e.stderr, "httpslab: serving (%s)\n", strings.Join(notes, "; "))
	select {
	case <-hup.Done():
		return nil
	case err := <-srv.Err():
		return fmt.Errorf("serving: %w", err)
	}
}

// saveCA writes the server's CA for clients (--ca-out or a temporary
// file); a server given --cert-file has none, and the path is empty.
func saveCA(srv *embedded.Server, f serveFlags) (string, func(), error) {
	if srv.CA == nil {
		return "", func() {}, nil
	}
	return srv.CA.Save(f.s.CAOut)
}
