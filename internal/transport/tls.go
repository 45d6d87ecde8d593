// Package transport dials the connections httpslab measures: TCP with
// curl's --resolve, --connect-to, -4 and -6, TLS configured as curl's
// flags spell it, and QUIC for HTTP/3. Every connection is wrapped so that
// the bytes read and written are counted and split at the end of the
// handshake, and the kernel's RTT estimate (TCP_INFO) can be read after a
// response. Dial attempts and handshakes are reported to the
// net/http/httptrace hooks of the dialing context, so callers time them
// the same way whichever protocol carried the request.
//
// It also holds the vocabulary probe, load (bench), compare and audit
// share, so that none translates another's: Protocol, ConnMode, Trust (a
// CA file, a pool in memory or -k), TLS (Trust and the rest of the client's
// TLS setup), Routes, Cert, and key-exchange groups named as the TLS
// registry names them (GroupName, ParseGroups).
package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
)

// TLS is the client TLS setup, as curl's flags spell it. The zero value
// verifies the server against the system roots and lets crypto/tls pick
// versions, suites and groups.
type TLS struct {
	Trust                    // which servers to accept: --cacert, a CA pool, -k
	Min, Max   uint16        // 0: library default
	Ciphers    []uint16      // TLS 1.2 suites; nil: default
	Curves     []tls.CurveID // key exchange groups in preference order; nil: default
	ServerName string        // SNI and verification name; empty: the URL's host
}

// Config returns a fresh *tls.Config for t. It reads CAFile each time.
func (t TLS) Config() (*tls.Config, error) {
	if t.Min != 0 && t.Max != 0 && t.Min > t.Max {
		return nil, fmt.Errorf("tls config: minimum %s is above maximum %s", tls.VersionName(t.Min), tls.VersionName(t.Max))
	}
	roots, err := t.Roots()
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:         t.Min,
		MaxVersion:         t.Max,
		CipherSuites:       t.Ciphers,
		CurvePreferences:   t.Curves,
		RootCAs:            roots,
		InsecureSkipVerify: t.Insecure,
		ServerName:         t.ServerName,
	}, nil
}

// LegacyOnly reports whether a highest TLS version (a tls.Config
// MaxVersion, 0 for the library's default) leaves only TLS 1.0 and 1.1.
func LegacyOnly(maxVersion uint16) bool {
	return maxVersion != 0 && maxVersion < tls.VersionTLS12
}

// CheckProtocolVersion returns an error when maxVersion rules out proto,
// HTTP2 (TLS 1.2 or later, RFC 9113 section 9.2) or HTTP3 (TLS 1.3 only,
// RFC 9001 section 4.2); nil otherwise. A maxVersion of 0 is the
// library's default and rules out nothing.
func CheckProtocolVersion(proto Protocol, maxVersion uint16) error {
	if maxVersion == 0 {
		return nil
	}
	switch {
	case proto == HTTP2 && maxVersion < tls.VersionTLS12:
		return fmt.Errorf("HTTP/2 needs TLS 1.2 or later (RFC 9113, section 9.2), not %s", tls.VersionName(maxVersion))
	case proto == HTTP3 && maxVersion < tls.VersionTLS13:
		return fmt.Errorf("HTTP/3 runs on TLS 1.3 only (RFC 9001, section 4.2), not %s", tls.VersionName(maxVersion))
	}
	return nil
}

// ParseCiphers reads a list of TLS 1.2 cipher suites separated by ':' or
// ',', each by its OpenSSL name (ECDHE-ECDSA-AES128-GCM-SHA256) or its
// IANA name (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256). TLS 1.3 suites
// cannot be chosen: crypto/tls fixes them.
func ParseCiphers(s string) ([]uint16, error) {
	byName := map[string]*tls.CipherSuite{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[strings.ToUpper(cs.Name)] = cs
		byName[strings.ToUpper(openSSLName(cs.Name))] = cs
	}
	var out []uint16
	for _, name := range splitList(s) {
		cs, ok := byName[strings.ToUpper(name)]
		switch {
		case !ok:
			return nil, fmt.Errorf("parsing ciphers: unknown cipher suite %q (give suite names such as ECDHE-RSA-AES128-GCM-SHA256; OpenSSL cipher strings like HIGH are not supported)", name)
		case isTLS13Only(cs):
			return nil, fmt.Errorf("parsing ciphers: %s is a TLS 1.3 suite, which Go's TLS chooses by itself", cs.Name)
		}
		out = append(out, cs.ID)
	}
	if len(out) == 0 {
		return nil, errors.New("parsing ciphers: empty list")
	}
	return out, nil
}

func isTLS13Only(cs *tls.CipherSuite) bool {
	return len(cs.SupportedVersions) == 1 && cs.SupportedVersions[0] == tls.VersionTLS13
}

// openSSLName turns an IANA cipher suite name into OpenSSL's spelling:
// TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 becomes ECDHE-RSA-AES128-GCM-SHA256,
// TLS_RSA_WITH_AES_128_CBC_SHA becomes AES128-SHA. Names without _WITH_
// (the TLS 1.3 suites) are returned unchanged, as OpenSSL keeps them.
func openSSLName(iana string) string {
	kx, bulk, ok := strings.Cut(strings.TrimPrefix(iana, "TLS_"), "_WITH_")
	if !ok {
		return iana
	}
	bulk = strings.NewReplacer("AES_128", "AES128", "AES_256", "AES256", "RC4_128", "RC4",
		"3DES_EDE_CBC", "DES_CBC3", "CBC_", "").Replace(bulk)
	bulk = strings.TrimSuffix(bulk, "POLY1305_SHA256") // OpenSSL drops the hash of ChaCha20 suites
	if strings.HasSuffix(bulk, "CHACHA20_") {
		bulk += "POLY1305"
	}
	name := strings.ReplaceAll(bulk, "_", "-")
	if kx != "RSA" {
		name = strings.ReplaceAll(kx, "_", "-") + "-" + name
	}
	return name
}

func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ':' || r == ',' || r == ' ' })
}
