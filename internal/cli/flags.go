package cli

import (
	"crypto/tls"
	"strings"
)

// parseTLSVersion reads a TLS version as curl spells it ("1.2", "1.3"),
// also accepting "tls1.2" and "TLSv1.2".
func parseTLSVersion(s string) (uint16, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	v = strings.TrimPrefix(strings.TrimPrefix(v, "tlsv"), "tls")
	switch v {
	case "1.0", "1":
		return tls.VersionTLS10, nil
	case "1.1":
		return tls.VersionTLS11, nil
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	case "", "default":
		return 0, nil
	}
	return 0, usagef("unknown TLS version %q (want 1.0, 1.1, 1.2 or 1.3)", s)
}

// checkVersionRange refuses a minimum above the maximum.
func checkVersionRange(min, max uint16) error {
	if min != 0 && max != 0 && min > max {
		return usagef("TLS minimum %s is above the maximum %s", tls.VersionName(min), tls.VersionName(max))
	}
	return nil
}
