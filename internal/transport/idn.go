package transport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// ASCIIHost returns host with an internationalized domain name in its
// ASCII form (the A-label, "bücher.test" → "xn--bcher-kva.test", RFC
// 5891), as DNS, SNI, the certificate check and the Host header need it;
// curl does the same with libidn2. An ASCII host, IP literals included,
// comes back lower-cased only.
func ASCIIHost(host string) (string, error) {
	if isASCII(host) {
		return strings.ToLower(host), nil
	}
	a, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", fmt.Errorf("host %q is not a valid internationalized domain name: %w", host, err)
	}
	return a, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
