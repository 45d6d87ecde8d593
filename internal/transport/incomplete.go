package transport

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
)

// IncompleteChain returns the last certificate a server sent when the
// chain stops short of its issuer: that issuer is not among the
// certificates sent, the last one is not self-signed, and the issuer is
// an intermediate rather than a root the client lacks. rootsGiven says
// the user named the roots (--cacert) and they lack it; otherwise an
// intermediate is known by the last certificate being a CA itself, or by
// its naming where its issuer can be fetched (AIA CA Issuers, which
// public CAs' leaves carry: public roots do not sign leaves directly). A
// leaf of a private CA checked without that CA is untrusted, not
// incomplete.
func IncompleteChain(sent []*x509.Certificate, rootsGiven bool) (*x509.Certificate, bool) {
	if len(sent) == 0 {
		return nil, false
	}
	last := sent[len(sent)-1]
	if bytes.Equal(last.RawIssuer, last.RawSubject) {
		return nil, false
	}
	for _, c := range sent {
		if bytes.Equal(c.RawSubject, last.RawIssuer) {
			return nil, false
		}
	}
	return last, rootsGiven || last.IsCA || len(last.IssuingCertificateURL) > 0
}

// DescribeIncomplete says what an incomplete chain lacks: "the server
// sends 1 certificate; its issuer, CN=R3,O=Let's Encrypt,C=US, is not in
// the chain".
func DescribeIncomplete(sent int, last *x509.Certificate) string {
	if sent == 1 {
		return fmt.Sprintf("the server sends 1 certificate; its issuer, %s, is not in the chain", last.Issuer)
	}
	return fmt.Sprintf("the server sends %d certificates; the last one's issuer, %s, is not in the chain", sent, last.Issuer)
}

// UntrustedHint says what to do about a chain that does not verify
// because its issuer is unknown, knowing whether roots were given (a CA
// file, --cacert): a chain that stops short of its issuer is the server's
// to fix, and roots already given are not asked for again. insecure is
// the command's way around the check ("-k"). "" for other errors.
func UntrustedHint(err error, t Trust, insecure string) string {
	var unknownCA x509.UnknownAuthorityError
	if !errors.As(err, &unknownCA) {
		return ""
	}
	if WeakSignature(err) {
		return "the issuer was found, but the certificate is signed with a hash no longer accepted (SHA-1): " +
			"reissue it with SHA-256, or " + insecure
	}
	given := t.CAFile != "" || t.RootCAs != nil
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		if last, ok := IncompleteChain(cve.UnverifiedCertificates, given); ok {
			what := DescribeIncomplete(len(cve.UnverifiedCertificates), last)
			if given {
				what += ", nor in the CA file given"
			}
			return what + ": the server must send its intermediate certificates (nginx: ssl_certificate names a file with " +
				"the leaf followed by them; curl and API clients fail without them, browsers may fetch them), or " + insecure
		}
	}
	if given {
		return "the certificate is not signed by the CA file given (another CA?); give that CA's file, or " + insecure
	}
	return "the certificate is not signed by a CA you trust (self-signed?); pass --cacert FILE or " + insecure
}

// WeakSignature reports whether a chain failed because crypto/x509 found
// the issuer but refused the hash of a signature (SHA-1), which it says
// only in the text of its unknown-authority error.
func WeakSignature(err error) bool {
	var unknownCA x509.UnknownAuthorityError
	return errors.As(err, &unknownCA) && strings.Contains(unknownCA.Error(), "insecure algorithm")
}
