package load

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResultHint checks that the hint follows the most frequent error
// (ties by message) and comes from its sample error, not its text.
func TestResultHint(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	unknownCA := &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	noIPSAN := &tls.CertificateVerificationError{Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "127.0.0.1"}}
	tests := []struct {
		errs map[string]int64
		want string
	}{
		{map[string]int64{"connect: connection refused": 5, "TLS handshake: tls: failed to verify certificate": 1}, "nothing listens"},
		{map[string]int64{"connect: connection refused": 1, "TLS handshake: tls: failed to verify certificate": 5}, "--cacert"},
		{map[string]int64{"connect: connection refused": 3, "TLS handshake: tls: failed to verify certificate": 3}, "--cacert"}, // tie: by name
		{map[string]int64{"TLS handshake: tls: failed to verify certificate: x509: no IP SANs": 3}, "does not name this host"},
		{map[string]int64{"timeout": 3}, "raise --timeout"},
		{map[string]int64{"read: EOF": 3}, "without an answer"},
		{map[string]int64{"status line: junk": 3}, "errors table"},
	}
	samples := map[string]error{
		"connect: connection refused":                                        refused,
		"TLS handshake: tls: failed to verify certificate":                   fmt.Errorf("TLS handshake: %w", unknownCA),
		"TLS handshake: tls: failed to verify certificate: x509: no IP SANs": fmt.Errorf("TLS handshake: %w", noIPSAN),
		"timeout":           os.ErrDeadlineExceeded,
		"read: EOF":         &net.OpError{Op: "read", Err: io.EOF},
		"status line: junk": errors.New("status line: junk"),
	}
	for _, tt := range tests {
		for range 20 { // map order differs between runs
			if got := (&Result{ErrorCounts: tt.errs, ErrorSamples: samples}).Hint(); !strings.Contains(got, tt.want) {
				t.Fatalf("Result{ErrorCounts: %v}.Hint() = %q; want it to contain %q", tt.errs, got, tt.want)
			}
		}
	}
}

// TestResultVerdict checks what a run that failed or tripped a threshold
// says: every request failed, none completed, or the thresholds hit with
// the value measured.
func TestResultVerdict(t *testing.T) {
	for _, tt := range []struct {
		res  Result
		want string
	}{
		{Result{Requests: 3, Errors: 2}, ""},
		{Result{Errors: 2}, "every request failed"},
		{Result{Config: Config{Duration: time.Second}}, "no request completed in the 1s run"},
	} {
		if err := tt.res.Failure(); fmt.Sprint(err) != tt.want && (err != nil || tt.want != "") {
			t.Errorf("Result{Requests: %d, Errors: %d}.Failure() = %v; want %q", tt.res.Requests, tt.res.Errors, err, tt.want)
		}
	}
	var ths []Threshold
	for _, s := range []string{"errors>0", "errors>5"} {
		th, err := ParseThreshold(s)
		if err != nil {
			t.Fatal(err)
		}
		ths = append(ths, th)
	}
	res := &Result{Requests: 3, Errors: 2}
	if got := res.Tripped(ths); !slices.Equal(got, []string{"errors>0 (measured 2)"}) {
		t.Errorf("Tripped(errors>0, errors>5) with 2 errors = %q; want [errors>0 (measured 2)]", got)
	}
}
