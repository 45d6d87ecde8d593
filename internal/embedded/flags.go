package embedded

import (
	"cmp"
	"crypto/tls"
	"net/netip"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// Flags are the embedded server's settings as serve's command line gives
// them; ServerConfig checks them. Errors name the flags and are usage
// errors.
type Flags struct {
	Host                string // --host: loopback, or the link's address
	HTTPPort, HTTPSPort int    // 0: a free one
	Cert                string // --cert: the key of a new certificate
	CertGiven           bool   // --cert was given
	TLSMin, TLSMax      string
	NoTickets, No0RTT   bool
	NoHTTP3, NoHSTS     bool
	CAOut               string // --ca-out
	CertFile, KeyFile   string // --cert-file, --key-file: a certificate of the user's
}

// ServerConfig returns the server's configuration.
func (f Flags) ServerConfig() (lab.Config, error) {
	if err := f.checkListen(); err != nil {
		return lab.Config{}, err
	}
	kind, err := lab.ParseKeyKind(f.Cert)
	if err != nil {
		return lab.Config{}, usage.Wrap(err, "")
	}
	minV, minErr := transport.ParseVersion(f.TLSMin)
	maxV, maxErr := transport.ParseVersion(f.TLSMax)
	if err := cmp.Or(minErr, maxErr, transport.CheckVersions(minV, maxV)); err != nil {
		return lab.Config{}, usage.Wrap(err, "")
	}
	cert, err := f.certificate()
	if err != nil {
		return lab.Config{}, err
	}
	return lab.Config{
		Host: f.Host, HTTPPort: f.HTTPPort, HTTPSPort: f.HTTPSPort, Cert: kind, Certificate: cert,
		MinVersion: minV, MaxVersion: maxV, NoTickets: f.NoTickets, No0RTT: f.No0RTT,
		NoHTTP3: f.NoHTTP3, NoHSTS: f.NoHSTS,
	}, nil
}

// certificate reads --cert-file and --key-file: a certificate kept across
// starts (a new CA at every start would make a client's --cacert of the
// last start fail at the next), or nil without them.
func (f Flags) certificate() (*tls.Certificate, error) {
	if f.CertFile == "" && f.KeyFile == "" {
		return nil, nil
	}
	if f.CertFile == "" || f.KeyFile == "" {
		return nil, usage.Errorf("--cert-file and --key-file go together")
	}
	if f.CAOut != "" || f.CertGiven {
		return nil, usage.Hinted("give clients the certificate's issuer, or the certificate itself when it is self-signed, with --cacert",
			"--cert-file excludes --cert and --ca-out: the certificate and its issuer are yours")
	}
	cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
	if err != nil {
		return nil, usage.Hinted("e.g. openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout key.pem -out cert.pem",
			"--cert-file %s, --key-file %s: %v", f.CertFile, f.KeyFile, err)
	}
	return &cert, nil
}

// checkListen refuses listen flags that the kernel would refuse later
// with a less helpful message, or that would expose the lab server: it
// is a target for measurements on this machine and listens on loopback
// only (behind an emulated link, on its address there).
func (f Flags) checkListen() error {
	for _, p := range []struct {
		flag string
		port int
	}{{"--http-port", f.HTTPPort}, {"--https-port", f.HTTPSPort}} {
		if p.port < 0 || p.port > 65535 {
			return usage.Errorf("%s %d: want a port from 1 to 65535, or 0 for a free one", p.flag, p.port)
		}
	}
	if f.HTTPPort != 0 && f.HTTPPort == f.HTTPSPort {
		return usage.Hinted("pick two ports, or leave one out for a free one",
			"--http-port and --https-port are both %d: plain HTTP and HTTPS need a port each", f.HTTPPort)
	}
	if f.Host == "localhost" || f.Host == "" {
		return nil
	}
	// 198.18.0.0/15 holds the emulated link's addresses: serve run behind
	// a link by another command (lab, experiment --server) listens on
	// its $HTTPSLAB_SERVER_IP there.
	if a, err := netip.ParseAddr(f.Host); err != nil || !a.IsLoopback() && !linkRange.Contains(a) {
		return usage.Hinted("the lab server is a local target; to put it behind a network, use --rtt and the other link flags",
			"--host %q: want a loopback address (127.0.0.0/8 or ::1) or the emulated link's (198.18.0.0/15)", f.Host)
	}
	return nil
}

// linkRange is the range set aside for network benchmarking, from which
// the emulated link takes its addresses.
var linkRange = netip.MustParsePrefix("198.18.0.0/15")
