package cli

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

type serveFlags struct {
	host              string
	httpPort, tlsPort int
	cert              string
	tlsMin, tlsMax    string
	noTickets, no0RTT bool
	noHTTP3, noHSTS   bool
	caOut             string
	certFile, keyFile string
	writeSite         string
	link              linkFlags
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
	fl.StringVar(&f.host, "host", "127.0.0.1", "address to listen on (loopback)")
	fl.IntVar(&f.httpPort, "http-port", 0, "plain HTTP port (0: a free one)")
	fl.IntVar(&f.tlsPort, "https-port", 0, "HTTPS port, also HTTP/3 over UDP (0: a free one)")
	fl.StringVar(&f.cert, "cert", "ecdsa-p256", "certificate key: ecdsa-p256, ecdsa-p384, rsa-2048, rsa-4096")
	fl.StringVar(&f.tlsMin, "tls-min", "1.2", "lowest TLS version offered")
	fl.StringVar(&f.tlsMax, "tls-max", "1.3", "highest TLS version offered (below 1.3: no HTTP/3, which needs TLS 1.3)")
	fl.BoolVar(&f.noTickets, "no-tickets", false, "turn session tickets, and so resumption, off")
	fl.BoolVar(&f.no0RTT, "no-0rtt", false, "refuse 0-RTT early data on HTTP/3")
	fl.BoolVar(&f.noHTTP3, "no-http3", false, "do not listen for HTTP/3")
	fl.BoolVar(&f.noHSTS, "no-hsts", false, "leave out the Strict-Transport-Security header")
	fl.StringVar(&f.caOut, "ca-out", "", "write the CA certificate here (default: a private temporary file)")
	fl.StringVar(&f.certFile, "cert-file", "", "serve this certificate chain (PEM), as nginx's ssl_certificate, instead of a new one: the same at every start")
	fl.StringVar(&f.keyFile, "key-file", "", "the private key (PEM) of --cert-file, as nginx's ssl_certificate_key")
	fl.StringVar(&f.writeSite, "write-site", "", "write the /page/ test pages as static files under `dir` for another server, and exit")
	f.link.add(fl)
	return cmd
}

// labConfig turns the serve flags into a lab.Config.
func (f serveFlags) labConfig() (lab.Config, error) {
	if err := f.checkListen(); err != nil {
		return lab.Config{}, err
	}
	kind, err := lab.ParseKeyKind(f.cert)
	if err != nil {
		return lab.Config{}, usageError{err}
	}
	minV, minErr := transport.ParseVersion(f.tlsMin)
	maxV, maxErr := transport.ParseVersion(f.tlsMax)
	if err := cmp.Or(minErr, maxErr, transport.CheckVersions(minV, maxV)); err != nil {
		return lab.Config{}, usageError{err}
	}
	cert, err := f.certificate()
	if err != nil {
		return lab.Config{}, err
	}
	return lab.Config{
		Host: f.host, HTTPPort: f.httpPort, HTTPSPort: f.tlsPort, Cert: kind, Certificate: cert,
		MinVersion: minV, MaxVersion: maxV, NoTickets: f.noTickets, No0RTT: f.no0RTT,
		NoHTTP3: f.noHTTP3, NoHSTS: f.noHSTS,
	}, nil
}

// certificate reads --cert-file and --key-file: a certificate kept across
// starts (a new CA at every start would make a client's --cacert of the
// last start fail at the next), or nil without them.
func (f serveFlags) certificate() (*tls.Certificate, error) {
	if f.certFile == "" && f.keyFile == "" {
		return nil, nil
	}
	if f.certFile == "" || f.keyFile == "" {
		return nil, usagef("--cert-file and --key-file go together")
	}
	if f.caOut != "" || f.link.fs != nil && f.link.fs.Changed("cert") {
		return nil, withHint(usagef("--cert-file excludes --cert and --ca-out: the certificate and its issuer are yours"),
			"give clients the certificate's issuer, or the certificate itself when it is self-signed, with --cacert")
	}
	cert, err := tls.LoadX509KeyPair(f.certFile, f.keyFile)
	if err != nil {
		return nil, withHint(usagef("--cert-file %s, --key-file %s: %v", f.certFile, f.keyFile, err),
			"e.g. openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout key.pem -out cert.pem")
	}
	return &cert, nil
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
	cfg, err := f.labConfig()
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
	notes := srv.Notes(f.noHTTP3)
	if caPath != "" {
		notes = append(notes, "CA certificate: "+caPath)
	} else {
		notes = append(notes, "certificate: "+f.certFile)
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
	return srv.CA.Save(f.caOut)
}
