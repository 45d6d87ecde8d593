package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"syscall"

	"github.com/quic-go/quic-go"
)

// Hint suggests what to do about a failed request, in the words of the
// flags every command that sends requests takes (curl's: --cacert, -k,
// --resolve, --max-time, --http2); "" when nothing useful can be said.
// The errors it tells apart are those a connection made here returns:
// certificate checks, refused or unresolved dials, TLS alerts, QUIC
// timeouts and transport's own limits.
func Hint(err error) string {
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		dnsErr    *net.DNSError
		idle      *quic.IdleTimeoutError
		hsTimeout *quic.HandshakeTimeoutError
		netErr    net.Error
		record    tls.RecordHeaderError
		addrErr   *net.AddrError
	)
	switch {
	case errors.As(err, &unknownCA):
		return UntrustedHint(err, Trust{}, "-k")
	case errors.As(err, &hostname):
		return "the certificate does not name this host; use --resolve or --connect-to to keep the right name, or -k"
	case errors.As(err, &invalid):
		if invalid.Reason == x509.Expired {
			return "the certificate has expired or is not yet valid (check the clocks); -k skips the check"
		}
		return "the certificate is not valid for a server; -k skips the check"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens on that address and port; is the server running? ('httpslab serve' starts one)"
	case errors.As(err, &dnsErr):
		return "the name does not resolve; --resolve HOST:PORT:ADDR connects without DNS"
	case ServerAlert(err, AlertProtocolVersion, AlertHandshakeFailure):
		return "the server and the client share no TLS version or cipher suite; check --tlsv1.2/--tlsv1.3, --tls-max, --ciphers and --curves"
	case errors.As(err, &idle), errors.As(err, &hsTimeout):
		return "no QUIC answer; is HTTP/3 served over UDP on this port? Try without --http3"
	case ServerAlert(err, AlertNoApplicationProtocol):
		return "the server offers none of the protocols asked for in ALPN (HTTP/2 with --http2?); leave out --http2 to let it choose"
	case errors.As(err, &addrErr) && addrErr.Err == "no suitable address found":
		return "-4 or -6 leaves no address of this host (an IP literal of the other family, or a name with addresses of one family only)"
	case IsHeaderLimit(err):
		return "the server sent a larger response header than --max-header-size allows (1MiB unless set); raise it if the header is real"
	case errors.Is(err, ErrInformational):
		return "the server keeps sending 1xx (informational) responses instead of its answer; the first few and the count are shown above"
	case strings.Contains(err.Error(), "connection error: PROTOCOL_ERROR"):
		return "the server broke the HTTP/2 protocol; a header block larger than --max-header-size ends the connection so, as does an invalid header field"
	case errors.As(err, &record):
		return "the server did not answer with TLS; is this a plain-HTTP port? Try http:// (or the server's HTTPS port)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection before the end of the response"
	case errors.Is(err, io.EOF):
		return "the server closed the connection without an answer; a TLS server does so when it accepts none of the offered versions, suites or names (try --tls-max, --ciphers), or when it does not speak TLS"
	case strings.Contains(err.Error(), "looked like an HTTP/1.1 header"):
		return "the server answered HTTP/1.1 to HTTP/2 without TLS (prior knowledge); use https:// or leave out --http2"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "the server did not answer in time; raise --max-time"
	}
	return ""
}

// TLS alerts that hints tell apart (RFC 8446, section 6).
const (
	AlertHandshakeFailure      tls.AlertError = 40
	AlertProtocolVersion       tls.AlertError = 70
	AlertNoApplicationProtocol tls.AlertError = 120
)

// ServerAlert reports whether the server refused the handshake with one
// of the alerts given. Over QUIC the alert comes as a tls.AlertError;
// over TCP crypto/tls keeps its alert type private, and it comes as a
// "remote error" whose text is the alert's description.
func ServerAlert(err error, alerts ...tls.AlertError) bool {
	var alert tls.AlertError
	if errors.As(err, &alert) && slices.Contains(alerts, alert) {
		return true
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return false
	}
	for _, a := range alerts {
		if strings.HasSuffix(op.Err.Error(), a.Error()) {
			return true
		}
	}
	return false
}
