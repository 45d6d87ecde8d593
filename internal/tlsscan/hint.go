package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"

	"github.com/httpslab/httpslab/internal/transport"
)

// Hint suggests what to do about an audit of cfg that failed with err, in
// the words of audit's flags (-k, --cacert, --max-time,
// --connect-timeout); transport.Hint's when audit has nothing of its own
// to say.
func Hint(err error, cfg Config) string {
	var (
		op     *net.OpError
		dnsErr *net.DNSError
		// A chain that does not verify for a reason other than its CA.
		hostErr x509.HostnameError
		invalid x509.CertificateInvalidError
		record  tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &hostErr):
		return fmt.Sprintf("the certificate does not name %s; audit a name it is valid for, or pass -k to audit anyway "+
			"(reported as cert-name-mismatch)", cfg.Host)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "the certificate has expired or is not yet valid (check the clocks); pass -k to audit anyway (reported as cert-expired)"
	case errors.Is(err, ErrTimeLimit):
		return "raise --max-time (or give 0) to wait longer for a slow server"
	case errors.Is(err, ErrUntrusted):
		id := "cert-untrusted"
		var cve *tls.CertificateVerificationError
		if transport.WeakSignature(err) {
			id = "cert-weak-signature"
		} else if errors.As(err, &cve) {
			roots, _ := cfg.Trust.Roots()
			if _, ok := transport.IncompleteChain(cve.UnverifiedCertificates, roots != nil); ok {
				id = "chain-incomplete"
			}
		}
		if h := transport.UntrustedHint(err, cfg.Trust, "-k to audit anyway (reported as "+id+")"); h != "" {
			return h
		}
		return "-k audits anyway (reported as " + id + ")"
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("the name %s does not resolve; check its spelling and the DNS", cfg.Host)
	case transport.ServerAlert(err, transport.AlertProtocolVersion, transport.AlertHandshakeFailure):
		return "the server accepts none of the TLS versions and cipher suites Go implements, which audit needs for its first " +
			"handshake; 'sslscan HOST:PORT' lists what it accepts"
	case errors.As(err, &record):
		// Not transport's "try http://": audit takes no http:// target.
		return fmt.Sprintf("port %d did not answer with TLS (plain HTTP?); audit the server's HTTPS port, and give this one as "+
			"--http-port %d to check its redirect to HTTPS", cfg.Port, cfg.Port)
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Sprintf("is a TLS server listening on %s port %d?", cfg.Host, cfg.Port)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s port %d accepted the connection but did not complete a TLS handshake in time; is it a TLS port? (--connect-timeout waits longer)", cfg.Host, cfg.Port)
	}
	return transport.Hint(err)
}
