package tlsscan

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// initialWindow is the data a server may send before the client's first
// ACK with the usual initial congestion window of 10 segments (RFC 6928)
// of 1460 bytes.
const initialWindow = 10 * 1460

// Chain is what the certificate check found.
type Chain struct {
	Certs []transport.Cert `json:"certs"`
	// Bytes is the size of the Certificate message computed from the
	// certificates received (handshake header included; record headers,
	// TLS 1.3 encryption and certificate extensions such as SCTs not).
	// The measured size is ServerRecords.Certificate.
	Bytes int `json:"bytes"`
	// Trusted is true when the chain verifies to a trusted root for the
	// host name; VerifyError says why not.
	Trusted     bool   `json:"trusted"`
	VerifyError string `json:"verify_error,omitempty"`
	verifyErr   error  // what VerifyError says, for errors.As
	NameMatch   bool   `json:"name_match"`
	// MissingIssuer names the issuer of the last certificate sent when the
	// chain does not verify because the server stops short of it (an
	// intermediate it should send): an incomplete chain.
	MissingIssuer string `json:"missing_issuer,omitempty"`
	// anchorErr is why the chain does not lead to a trusted root, its
	// name and validity dates aside: nil when only those fail.
	anchorErr error
	leaf      *x509.Certificate
	// incomplete describes what an incomplete chain lacks.
	incomplete string
	// Ordered is false when a certificate is not followed by its issuer.
	Ordered bool `json:"ordered"`
	// NeedlessRoot is true when the server sends a self-signed root,
	// which clients never use.
	NeedlessRoot bool     `json:"needless_root"`
	ExpiresIn    Duration `json:"expires_in_ns"`
	OCSPServers  []string `json:"ocsp_servers,omitempty"`
	Stapled      bool     `json:"stapled"`
	// StapleHandshakes counts the full handshakes looked at for a staple,
	// and StapleWait the time from the first to the last of them: nginx
	// fetches its staple after the first handshake that wants one, so one
	// handshake without it proves nothing.
	StapleHandshakes int      `json:"staple_handshakes,omitempty"`
	StapleWait       Duration `json:"staple_wait_ns,omitempty"`
}

// checkChain inspects the certificates of a completed handshake.
func checkChain(cs tls.ConnectionState, host string, roots *x509.CertPool, now time.Time) Chain {
	certs := cs.PeerCertificates
	var c Chain
	if len(certs) == 0 {
		c.VerifyError = "the server sent no certificate"
		c.verifyErr = errors.New(c.VerifyError)
		return c
	}
	c.Bytes = 4 + 3 // handshake header and certificate_list length
	if cs.Version == tls.VersionTLS13 {
		c.Bytes++ // the empty certificate_request_context (RFC 8446, 4.4.2)
	}
	for _, cert := range certs {
		c.Certs = append(c.Certs, transport.CertFacts(cert))
		c.Bytes += 3 + len(cert.Raw)
		if cs.Version == tls.VersionTLS13 {
			c.Bytes += 2 // empty extensions per entry
		}
	}
	leaf := certs[0]
	c.leaf = leaf
	c.NameMatch = leaf.VerifyHostname(host) == nil
	c.Ordered = true
	for i := 0; i+1 < len(certs); i++ {
		if !bytes.Equal(certs[i].RawIssuer, certs[i+1].RawSubject) {
			c.Ordered = false
		}
	}
	c.NeedlessRoot = len(certs) > 1 && c.Certs[len(c.Certs)-1].SelfSigned
	c.ExpiresIn = Duration(leaf.NotAfter.Sub(now))
	c.OCSPServers = leaf.OCSPServer
	c.Stapled = len(cs.OCSPResponse) > 0
	inter := x509.NewCertPool()
	for _, cert := range certs[1:] {
		inter.AddCert(cert)
	}
	_, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: roots, Intermediates: inter, CurrentTime: now})
	c.Trusted = err == nil
	if err != nil {
		c.VerifyError, c.verifyErr = err.Error(), err
		c.anchorErr = anchor(leaf, roots, inter, now)
		if transport.WeakSignature(c.anchorErr) {
			// The issuer was found, its signature's hash refused:
			// cert-weak-signature's, not an unknown or missing CA.
			c.anchorErr = nil
		}
		var unknown x509.UnknownAuthorityError
		if last, ok := transport.IncompleteChain(certs, roots != nil); ok && errors.As(c.anchorErr, &unknown) {
			c.MissingIssuer, c.incomplete = last.Issuer.String(), transport.DescribeIncomplete(len(certs), last)
		}
	}
	return c
}

// anchor is why the chain does not lead to a trusted root, its leaf's
// name and dates aside (they have their own findings): nil when only
// those fail. crypto/x509 checks an expired leaf before it looks for an
// issuer, so the chain is tried again at a time the leaf is valid; a date
// that fails then (an issuer made after the leaf expired) is put down to
// the leaf's dates too.
func anchor(leaf *x509.Certificate, roots, inter *x509.CertPool, now time.Time) error {
	verify := func(at time.Time) error {
		_, err := leaf.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: at})
		return err
	}
	err := verify(now)
	var invalid x509.CertificateInvalidError
	if !errors.As(err, &invalid) || invalid.Reason != x509.Expired || invalid.Cert != leaf {
		return err
	}
	if err = verify(within(leaf, now)); errors.As(err, &invalid) && invalid.Reason == x509.Expired {
		return nil
	}
	return err
}

// within returns now, or the nearest time within the certificate's
// validity.
func within(cert *x509.Certificate, now time.Time) time.Time {
	switch {
	case now.After(cert.NotAfter):
		return cert.NotAfter.Add(-time.Second)
	case now.Before(cert.NotBefore):
		return cert.NotBefore.Add(time.Second)
	}
	return now
}

// leafCurve returns the curve of an ECDSA leaf key as a TLS group, 0 for
// other keys.
func (c *Chain) leafCurve() tls.CurveID {
	if len(c.Certs) == 0 {
		return 0
	}
	switch c.Certs[0].KeyType {
	case "ECDSA P-256":
		return tls.CurveP256
	case "ECDSA P-384":
		return tls.CurveP384
	case "ECDSA P-521":
		return tls.CurveP521
	}
	return 0
}

// staplePauses are the pauses before each further handshake that looks
// for a staple the first one lacked: 0.75 s in all, at most.
var staplePauses = []time.Duration{50 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond}

// recheckStaple makes further full handshakes when the certificate names
// an OCSP responder but the first handshake carried no staple, until one
// does or the pauses run out.
func (t *target) recheckStaple(ctx context.Context, c *Chain) {
	if len(c.OCSPServers) == 0 || c.Stapled {
		return
	}
	c.StapleHandshakes = 1
	start := time.Now()
	for _, pause := range staplePauses {
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		s, err := t.dial(ctx, t.config(VersionTLS13), noRecording)
		if err != nil {
			return
		}
		c.StapleHandshakes++
		c.StapleWait = Duration(time.Since(start))
		c.Stapled = len(s.conn.ConnectionState().OCSPResponse) > 0
		s.conn.Close()
		if c.Stapled {
			return
		}
	}
}

// Duration is a time.Duration; in JSON it is integer nanoseconds, as in
// every httpslab result, and its field names end in _ns.
type Duration = time.Duration
