package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestHint checks that each kind of failure gets the hint that names its
// fix, also when the error comes wrapped, and that an unknown one gets none.
func TestHint(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		err  error
		want string
	}{
		{&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, "--cacert FILE or -k"},
		{fmt.Errorf("TLS handshake: %w", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "a.test"}), "does not name this host"},
		{x509.CertificateInvalidError{Reason: x509.Expired}, "has expired"},
		{refused, "nothing listens"},
		{&net.DNSError{Err: "no such host", Name: "a.test"}, "--resolve"},
		{&net.OpError{Op: "remote error", Err: errors.New("tls: protocol version not supported")}, "share no TLS version"},
		{tls.AlertError(120), "ALPN"},
		{fmt.Errorf("reading: %w", ErrInformational), "1xx"},
		{tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}, "did not answer with TLS"},
		{&net.OpError{Op: "read", Err: io.ErrUnexpectedEOF}, "before the end of the response"},
		{&net.OpError{Op: "read", Err: io.EOF}, "without an answer"},
		{errors.New("status line: junk"), ""},
	}
	for _, tt := range tests {
		got := Hint(tt.err)
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("Hint(%v) = %q; want it to contain %q", tt.err, got, tt.want)
		}
	}
}

// TestServerAlert checks both forms an alert arrives in: QUIC's
// tls.AlertError and TCP's "remote error" text.
func TestServerAlert(t *testing.T) {
	tcp := &net.OpError{Op: "remote error", Err: errors.New("tls: handshake failure")}
	if !ServerAlert(tcp, AlertProtocolVersion, AlertHandshakeFailure) {
		t.Errorf("ServerAlert(%v, 70, 40) = false; want true", tcp)
	}
	if ServerAlert(tcp, AlertNoApplicationProtocol) {
		t.Errorf("ServerAlert(%v, 120) = true; want false", tcp)
	}
	if !ServerAlert(fmt.Errorf("handshake: %w", AlertProtocolVersion), AlertProtocolVersion) {
		t.Error("ServerAlert(wrapped alert 70, 70) = false; want true")
	}
}
