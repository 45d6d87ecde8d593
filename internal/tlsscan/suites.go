package tlsscan

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Suite is a cipher suite by its IANA code point and name.
type Suite struct {
	ID   uint16 `json:"id"`
	Name string `json:"name"`
}

// otherSuites are the cipher suites servers still offer that Go's TLS stack
// does not implement, so tls.CipherSuites and tls.InsecureCipherSuites do
// not name them. Code points and names are from the IANA TLS Cipher Suites
// registry; the list holds every suite OpenSSL 3 offers with
// "ALL:COMPLEMENTOFALL:eNULL:@SECLEVEL=0" except the PSK and SRP suites,
// which need a shared secret or password that web servers do not set up.
var otherSuites = map[uint16]string{
	0x0001: "TLS_RSA_WITH_NULL_MD5",
	0x0002: "TLS_RSA_WITH_NULL_SHA",
	0x0004: "TLS_RSA_WITH_RC4_128_MD5",
	0x0009: "TLS_RSA_WITH_DES_CBC_SHA",
	0x0016: "TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA",
	0x0032: "TLS_DHE_DSS_WITH_AES_128_CBC_SHA",
	0x0033: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA",
	0x0034: "TLS_DH_anon_WITH_AES_128_CBC_SHA",
	0x0038: "TLS_DHE_DSS_WITH_AES_256_CBC_SHA",
	0x0039: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA",
	0x003A: "TLS_DH_anon_WITH_AES_256_CBC_SHA",
	0x003B: "TLS_RSA_WITH_NULL_SHA256",
	0x003D: "TLS_RSA_WITH_AES_256_CBC_SHA256",
	0x0040: "TLS_DHE_DSS_WITH_AES_128_CBC_SHA256",
	0x0041: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA",
	0x0044: "TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA",
	0x0045: "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA",
	0x0046: "TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA",
	0x0067: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256",
	0x006A: "TLS_DHE_DSS_WITH_AES_256_CBC_SHA256",
	0x006B: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256",
	0x006C: "TLS_DH_anon_WITH_AES_128_CBC_SHA256",
	0x006D: "TLS_DH_anon_WITH_AES_256_CBC_SHA256",
	0x0084: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA",
	0x0087: "TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA",
	0x0088: "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA",
	0x0089: "TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA",
	0x0096: "TLS_RSA_WITH_SEED_CBC_SHA",
	0x009E: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256",
	0x009F: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
	0x00A2: "TLS_DHE_DSS_WITH_AES_128_GCM_SHA256",
	0x00A3: "TLS_DHE_DSS_WITH_AES_256_GCM_SHA384",
	0x00A6: "TLS_DH_anon_WITH_AES_128_GCM_SHA256",
	0x00A7: "TLS_DH_anon_WITH_AES_256_GCM_SHA384",
	0x00BA: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA256",
	0x00BD: "TLS_DHE_DSS_WITH_CAMELLIA_128_CBC_SHA256",
	0x00BE: "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA256",
	0x00BF: "TLS_DH_anon_WITH_CAMELLIA_128_CBC_SHA256",
	0x00C0: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA256",
	0x00C3: "TLS_DHE_DSS_WITH_CAMELLIA_256_CBC_SHA256",
	0x00C4: "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA256",
	0x00C5: "TLS_DH_anon_WITH_CAMELLIA_256_CBC_SHA256",
	0x1304: "TLS_AES_128_CCM_SHA256",
	0x1305: "TLS_AES_128_CCM_8_SHA256",
	0xC006: "TLS_ECDHE_ECDSA_WITH_NULL_SHA",
	0xC010: "TLS_ECDHE_RSA_WITH_NULL_SHA",
	0xC015: "TLS_ECDH_anon_WITH_NULL_SHA",
	0xC018: "TLS_ECDH_anon_WITH_AES_128_CBC_SHA",
	0xC019: "TLS_ECDH_anon_WITH_AES_256_CBC_SHA",
	0xC024: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
	0xC028: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
	0xC050: "TLS_RSA_WITH_ARIA_128_GCM_SHA256",
	0xC051: "TLS_RSA_WITH_ARIA_256_GCM_SHA384",
	0xC052: "TLS_DHE_RSA_WITH_ARIA_128_GCM_SHA256",
	0xC053: "TLS_DHE_RSA_WITH_ARIA_256_GCM_SHA384",
	0xC056: "TLS_DHE_DSS_WITH_ARIA_128_GCM_SHA256",
	0xC057: "TLS_DHE_DSS_WITH_ARIA_256_GCM_SHA384",
	0xC05C: "TLS_ECDHE_ECDSA_WITH_ARIA_128_GCM_SHA256",
	0xC05D: "TLS_ECDHE_ECDSA_WITH_ARIA_256_GCM_SHA384",
	0xC060: "TLS_ECDHE_RSA_WITH_ARIA_128_GCM_SHA256",
	0xC061: "TLS_ECDHE_RSA_WITH_ARIA_256_GCM_SHA384",
	0xC072: "TLS_ECDHE_ECDSA_WITH_CAMELLIA_128_CBC_SHA256",
	0xC073: "TLS_ECDHE_ECDSA_WITH_CAMELLIA_256_CBC_SHA384",
	0xC076: "TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256",
	0xC077: "TLS_ECDHE_RSA_WITH_CAMELLIA_256_CBC_SHA384",
	0xC09C: "TLS_RSA_WITH_AES_128_CCM",
	0xC09D: "TLS_RSA_WITH_AES_256_CCM",
	0xC09E: "TLS_DHE_RSA_WITH_AES_128_CCM",
	0xC09F: "TLS_DHE_RSA_WITH_AES_256_CCM",
	0xC0A0: "TLS_RSA_WITH_AES_128_CCM_8",
	0xC0A1: "TLS_RSA_WITH_AES_256_CCM_8",
	0xC0A2: "TLS_DHE_RSA_WITH_AES_128_CCM_8",
	0xC0A3: "TLS_DHE_RSA_WITH_AES_256_CCM_8",
	0xC0AC: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM",
	0xC0AD: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM",
	0xC0AE: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8",
	0xC0AF: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8",
	0xCCAA: "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
}

// SuiteName returns the IANA name of a cipher suite: Go's name where Go
// knows the suite, else the name from the small table above, else hex.
func SuiteName(id uint16) string {
	if n, ok := otherSuites[id]; ok {
		return n
	}
	n := tls.CipherSuiteName(id)
	if strings.HasPrefix(n, "0x") {
		return fmt.Sprintf("0x%04X", id)
	}
	return n
}

// isTLS13Suite reports the suites that only TLS 1.3 uses.
func isTLS13Suite(id uint16) bool { return id>>8 == 0x13 }

// candidates holds the suites offered when enumerating, built once:
// [0] for versions before TLS 1.3, [1] for TLS 1.3.
var candidates = sync.OnceValue(func() [2][]uint16 {
	return [2][]uint16{buildCandidates(false), buildCandidates(true)}
})

// candidateSuites returns a copy of the suites offered when enumerating a
// version: TLS 1.3 suites for TLS 1.3 and the others for older versions.
func candidateSuites(tls13 bool) []uint16 {
	if tls13 {
		return slices.Clone(candidates()[1])
	}
	return slices.Clone(candidates()[0])
}

// goSuites lists the suites Go implements, the insecure ones too, in
// Go's order: those of TLS 1.3, or those of the versions before it.
func goSuites(tls13 bool) []uint16 {
	var out []uint16
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if isTLS13Suite(s.ID) == tls13 && !slices.Contains(out, s.ID) {
			out = append(out, s.ID)
		}
	}
	return out
}

// buildCandidates lists Go's suites in Go's order, then the suites of the
// table above sorted by code point, so that every ClientHello of every run
// offers them in the same order (map order must not leak into it).
func buildCandidates(tls13 bool) []uint16 {
	out := goSuites(tls13)
	var rest []uint16
	for id := range otherSuites {
		if isTLS13Suite(id) == tls13 && !slices.Contains(out, id) {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// suiteTraits classifies a suite by its name.
type suiteTraits struct {
	CBC, Weak, NoForwardSecrecy bool
}

func traitsOf(id uint16) suiteTraits {
	n := SuiteName(id)
	var t suiteTraits
	t.CBC = strings.Contains(n, "_CBC_")
	for _, w := range []string{"_NULL_", "_RC4_", "_DES_", "3DES", "_EXPORT", "_anon_", "_MD5"} {
		if strings.Contains(n, w) {
			t.Weak = true
		}
	}
	t.NoForwardSecrecy = strings.HasPrefix(n, "TLS_RSA_")
	return t
}
