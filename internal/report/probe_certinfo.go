package report

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"fmt"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// curlCertInfo writes one certificate as curl's %{certs} shows it with
// OpenSSL, one "Name:value" line each:
//
//	Subject:O = httpslab, CN = localhost
//	Issuer:O = httpslab, CN = httpslab test CA
//	Version:2
//	Serial Number:08ca467ca4bb166f
//	Signature Algorithm:ecdsa-with-SHA256
//	Public Key Algorithm:id-ecPublicKey
//	Start date:Nov 23 13:48:45 2026 GMT
//	Expire date:Nov 30 14:48:45 2026 GMT
//	-----BEGIN CERTIFICATE-----
//	...
//	-----END CERTIFICATE-----
//
// curl also lists the X509v3 extensions and the signature bytes, which
// are left out. Without the certificate's bytes, the lines come from
// the recorded facts.
//
// The values come from the server's certificate: for text, escape is
// Escape, so that each stays on its line and cannot act on a terminal;
// for JSON it keeps them exact.
func curlCertInfo(c transport.Cert, escape func(string) string) string {
	var b strings.Builder
	line := func(name, value string) { fmt.Fprintf(&b, "%s:%s\n", name, escape(value)) }
	cert, err := x509.ParseCertificate(c.DER)
	if err != nil {
		line("Subject", c.Subject)
		line("Issuer", c.Issuer)
		line("Signature Algorithm", c.SigAlg)
		line("Public Key Algorithm", c.KeyType)
		line("Expire date", opensslTime(c.NotAfter))
		return b.String()
	}
	line("Subject", opensslName(cert.RawSubject, cert.Subject))
	line("Issuer", opensslName(cert.RawIssuer, cert.Issuer))
	line("Version", fmt.Sprint(cert.Version-1))
	line("Serial Number", fmt.Sprintf("%x", cert.SerialNumber.Bytes()))
	line("Signature Algorithm", opensslSigAlg(cert.SignatureAlgorithm))
	line("Public Key Algorithm", opensslKeyAlg(cert.PublicKey))
	line("Start date", opensslTime(cert.NotBefore))
	line("Expire date", opensslTime(cert.NotAfter))
	b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.DER}))
	return b.String()
}

// opensslTime is OpenSSL's ASN1_TIME_print form.
func opensslTime(t time.Time) string {
	return t.UTC().Format("Jan _2 15:04:05 2006 GMT")
}

// opensslShort are OpenSSL's short names of the usual name attributes.
var opensslShort = map[string]string{
	"2.5.4.6": "C", "2.5.4.8": "ST", "2.5.4.7": "L", "2.5.4.10": "O", "2.5.4.11": "OU",
	"2.5.4.3": "CN", "2.5.4.5": "serialNumber", "2.5.4.9": "street", "2.5.4.17": "postalCode",
	"2.5.4.4": "SN", "2.5.4.42": "GN", "2.5.4.12": "title", "2.5.4.97": "organizationIdentifier",
	"1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1": "UID", "1.3.6.1.4.1.311.60.2.1.3": "jurisdictionC",
	"2.5.4.15": "businessCategory",
}

// opensslName is the name whose DER is raw in OpenSSL's one-line form
// (XN_FLAG_ONELINE): the attributes in the certificate's order,
// "O = httpslab, CN = x", values with special characters in quotes; n
// when raw does not parse.
func opensslName(raw []byte, n pkix.Name) string {
	var rdns pkix.RDNSequence
	if rest, err := asn1.Unmarshal(raw, &rdns); err != nil || len(rest) > 0 || len(rdns) == 0 {
		return n.String()
	}
	var parts []string
	for _, rdn := range rdns {
		var attrs []string
		for _, a := range rdn {
			key, ok := opensslShort[a.Type.String()]
			if !ok {
				key = a.Type.String()
			}
			attrs = append(attrs, key+" = "+opensslValue(fmt.Sprint(a.Value)))
		}
		parts = append(parts, strings.Join(attrs, " + "))
	}
	return strings.Join(parts, ", ")
}

// opensslValue quotes a value that holds a character RFC 2253 would
// escape, as OpenSSL's ESC_QUOTE does.
func opensslValue(v string) string {
	if !strings.ContainsAny(v, `,+"\<>;`) && !strings.HasPrefix(v, "#") &&
		strings.TrimSpace(v) == v {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

func opensslSigAlg(a x509.SignatureAlgorithm) string {
	switch a {
	case x509.SHA1WithRSA:
		return "sha1WithRSAEncryption"
	case x509.SHA256WithRSA:
		return "sha256WithRSAEncryption"
	case x509.SHA384WithRSA:
		return "sha384WithRSAEncryption"
	case x509.SHA512WithRSA:
		return "sha512WithRSAEncryption"
	case x509.SHA256WithRSAPSS, x509.SHA384WithRSAPSS, x509.SHA512WithRSAPSS:
		return "rsassaPss"
	case x509.ECDSAWithSHA1:
		return "ecdsa-with-SHA1"
	case x509.ECDSAWithSHA256:
		return "ecdsa-with-SHA256"
	case x509.ECDSAWithSHA384:
		return "ecdsa-with-SHA384"
	case x509.ECDSAWithSHA512:
		return "ecdsa-with-SHA512"
	case x509.PureEd25519:
		return "ED25519"
	}
	return a.String()
}

func opensslKeyAlg(k any) string {
	switch k.(type) {
	case *rsa.PublicKey:
		return "rsaEncryption"
	case *ecdsa.PublicKey:
		return "id-ecPublicKey"
	case ed25519.PublicKey:
		return "ED25519"
	}
	return fmt.Sprintf("%T", k)
}
