package transport

import (
	"crypto/tls"
	"fmt"
	"strings"
)

// ParseVersion reads a TLS version as curl spells it ("1.2", "1.3"), also
// as "tls1.2" or "TLSv1.2"; "" and "default" are 0, the library's default.
func ParseVersion(s string) (uint16, error) {
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
	return 0, fmt.Errorf("unknown TLS version %q (want 1.0, 1.1, 1.2 or 1.3)", s)
}

// CheckVersions refuses a lowest version above the highest (0 is the
// library's default and bounds nothing).
func CheckVersions(lowest, highest uint16) error {
	if lowest != 0 && highest != 0 && lowest > highest {
		return fmt.Errorf("TLS minimum %s is above the maximum %s", tls.VersionName(lowest), tls.VersionName(highest))
	}
	return nil
}
