package transport

import "crypto/tls"

// CurlTLS is a TLS setup as curl's options spell it: --tlsv1.2 or
// --tlsv1.3 (the lowest version), --tls-max, --ciphers, --curves,
// --cacert and -k, for every command that takes them.
type CurlTLS struct {
	TLSv12, TLSv13       bool
	Max, Ciphers, Curves string // "" for the defaults
	CAFile               string
	Insecure             bool
}

// TLS reads the options. A highest version below TLS 1.2 without a lowest
// one means the legacy versions, as in curl: crypto/tls would offer TLS
// 1.2 at the least and find no version in the range.
func (c CurlTLS) TLS() (TLS, error) {
	t := TLS{Trust: Trust{CAFile: c.CAFile, Insecure: c.Insecure}}
	switch {
	case c.TLSv13:
		t.Min = tls.VersionTLS13
	case c.TLSv12:
		t.Min = tls.VersionTLS12
	}
	var err error
	if t.Max, err = ParseVersion(c.Max); err != nil {
		return t, err
	}
	if err := CheckVersions(t.Min, t.Max); err != nil {
		return t, err
	}
	if t.Min == 0 && LegacyOnly(t.Max) {
		t.Min = tls.VersionTLS10
	}
	if c.Ciphers != "" {
		if t.Ciphers, err = ParseCiphers(c.Ciphers); err != nil {
			return t, err
		}
	}
	if c.Curves != "" {
		if t.Curves, err = ParseGroups(c.Curves); err != nil {
			return t, err
		}
	}
	return t, nil
}
