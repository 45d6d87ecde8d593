package probe

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"time"
)

// OpenSSL's X509_V_ERR codes, which curl reports as %{ssl_verify_result}
// (with -k too: curl then still runs OpenSSL's chain check and only
// ignores its outcome).
const (
	VerifyOK                = 0  // X509_V_OK
	VerifyUnspecified       = 1  // X509_V_ERR_UNSPECIFIED: no chain check ran, or it failed otherwise
	VerifyNotYetValid       = 9  // X509_V_ERR_CERT_NOT_YET_VALID
	VerifyExpired           = 10 // X509_V_ERR_CERT_HAS_EXPIRED
	VerifySelfSignedLeaf    = 18 // X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT
	VerifySelfSignedInChain = 19 // X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
	VerifyNoLocalIssuer     = 20 // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
	VerifyInvalidCA         = 24 // X509_V_ERR_INVALID_CA
	VerifyInvalidPurpose    = 26 // X509_V_ERR_INVALID_PURPOSE
)

// VerifyResult returns OpenSSL's code for a failed certificate check,
// VerifyOK for nil. A host name mismatch is VerifyUnspecified, as curl
// 7.88 reports it: curl checks the name itself, after OpenSSL's chain
// check.
func VerifyResult(err error) int {
	var (
		unknownCA x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
	)
	switch {
	case err == nil:
		return VerifyOK
	case errors.As(err, &unknownCA):
		return unknownAuthorityCode(err, unknownCA.Cert)
	case errors.As(err, &invalid):
		switch invalid.Reason {
		case x509.Expired:
			if invalid.Cert != nil && time.Now().Before(invalid.Cert.NotBefore) {
				return VerifyNotYetValid
			}
			return VerifyExpired
		case x509.NotAuthorizedToSign, x509.CANotAuthorizedForThisName, x509.CANotAuthorizedForExtKeyUsage:
			return VerifyInvalidCA
		case x509.IncompatibleUsage:
			return VerifyInvalidPurpose
		}
	}
	return VerifyUnspecified
}

// unknownAuthorityCode tells a self-signed server certificate (18) from
// a chain that ends in an untrusted self-signed root (19) or in a
// certificate whose issuer is missing (20).
func unknownAuthorityCode(err error, cert *x509.Certificate) int {
	var ve *tls.CertificateVerificationError
	chain := []*x509.Certificate{cert}
	if errors.As(err, &ve) && len(ve.UnverifiedCertificates) > 0 {
		chain = ve.UnverifiedCertificates
	}
	top := chain[len(chain)-1]
	if top == nil || !bytes.Equal(top.RawIssuer, top.RawSubject) || top.CheckSignatureFrom(top) != nil {
		return VerifyNoLocalIssuer
	}
	if len(chain) == 1 {
		return VerifySelfSignedLeaf
	}
	return VerifySelfSignedInChain
}

// checkChain runs the chain check that -k skipped, against the same
// roots (nil: the system's) but without the host name, as curl -k
// reports it. It returns the code and the error text.
func checkChain(cs *tls.ConnectionState, roots *x509.CertPool) (int, string) {
	if len(cs.PeerCertificates) == 0 {
		return VerifyUnspecified, "" // a resumed session may carry no chain
	}
	opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err := cs.PeerCertificates[0].Verify(opts)
	if err == nil {
		return VerifyOK, ""
	}
	return VerifyResult(&tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}), err.Error()
}
