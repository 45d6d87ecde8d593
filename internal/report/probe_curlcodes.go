package report

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/quic-go/quic-go"
)

// curl's exit codes (curl(1), EXIT CODES) for the failures a probe can
// meet, for %{exitcode}: a script that tells a timeout (28) from a
// refused connection (7) or a bad certificate (60) by curl's number
// reads the same number from httpslab.
const (
	curlOK                 = 0
	curlUnsupportedProto   = 1  // a redirect to a scheme other than http(s); also any other failure
	curlCouldNotResolve    = 6  // the host name does not resolve
	curlCouldNotConnect    = 7  // no connection (refused, unreachable)
	curlPartialFile        = 18 // the body ended before its announced length
	curlHTTPReturnedError  = 22 // -f: the final response was 400 or more
	curlOperationTimedOut  = 28 // --max-time, or no QUIC answer
	curlSSLConnectError    = 35 // the TLS (or QUIC) handshake failed
	curlAborted            = 42 // the run was interrupted (Ctrl-C)
	curlTooManyRedirects   = 47 // -L reached --max-redirs
	curlGotNothing         = 52 // the server closed the connection without an answer
	curlSendError          = 55 // writing the request failed
	curlRecvError          = 56 // reading the response failed
	curlPeerFailedVerified = 60 // the server's certificate did not verify
)

// CurlExitCode returns curl's exit code for the failure err of a
// transfer whose last hop is last (nil when there is none): 0 for nil
// err, 1 for a failure curl has no code of its own for.
func CurlExitCode(err error, last *probe.Timeline) int {
	if err == nil {
		return curlOK
	}
	if code := curlCodeOf(err); code != 0 {
		return code
	}
	if last != nil && !last.Events.TLSStart.IsZero() && last.Events.TLSDone.IsZero() {
		return curlSSLConnectError // any other handshake failure, EOF included
	}
	var op *net.OpError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return curlPartialFile
	case errors.Is(err, io.EOF):
		return curlGotNothing
	case errors.Is(err, syscall.ECONNRESET):
		return curlRecvError
	case errors.As(err, &op) && op.Op == "dial":
		return curlCouldNotConnect
	case errors.As(err, &op) && op.Op == "read":
		return curlRecvError
	case errors.As(err, &op) && op.Op == "write":
		return curlSendError
	}
	return curlUnsupportedProto
}

// curlCodeOf classifies err by its type alone; 0 when it cannot.
func curlCodeOf(err error) int {
	var (
		dnsErr    *net.DNSError
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		verify    *tls.CertificateVerificationError
		record    tls.RecordHeaderError
		alert     tls.AlertError
		idle      *quic.IdleTimeoutError
		hsTimeout *quic.HandshakeTimeoutError
		netErr    net.Error
	)
	switch {
	case errors.Is(err, context.Canceled): // first: the cut-off read also times out
		return curlAborted
	case errors.Is(err, probe.ErrHTTPStatus):
		return curlHTTPReturnedError
	case errors.Is(err, probe.ErrRedirectLimit):
		return curlTooManyRedirects
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &idle), errors.As(err, &hsTimeout),
		errors.As(err, &netErr) && netErr.Timeout():
		return curlOperationTimedOut
	case errors.As(err, &dnsErr):
		return curlCouldNotResolve
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return curlCouldNotConnect
	case errors.As(err, &verify), errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid):
		return curlPeerFailedVerified
	case errors.As(err, &record), errors.As(err, &alert):
		return curlSSLConnectError
	}
	return 0
}
