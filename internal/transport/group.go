package transport

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Key-exchange groups crypto/tls does not name, as their code points in
// the IANA TLS Supported Groups registry: audit asks servers about them,
// though Go's TLS cannot offer them.
const (
	GroupX448      tls.CurveID = 0x001E
	GroupFFDHE2048 tls.CurveID = 0x0100
	GroupFFDHE3072 tls.CurveID = 0x0101
	GroupFFDHE4096 tls.CurveID = 0x0102
	GroupFFDHE6144 tls.CurveID = 0x0103
	GroupFFDHE8192 tls.CurveID = 0x0104
)

// registryNames are the IANA TLS Supported Groups registry's names of the
// groups where they differ from tls.CurveID.String: Go names the classic
// groups by its own identifiers (CurveP256, X25519), which no OpenSSL,
// nginx or Wireshark user knows, and does not name x448 and ffdhe at all.
// The hybrids Go already names as the registry does (X25519MLKEM768), so
// they are not repeated here.
var registryNames = map[tls.CurveID]string{
	tls.X25519: "x25519", tls.CurveP256: "secp256r1", tls.CurveP384: "secp384r1", tls.CurveP521: "secp521r1",
	GroupX448: "x448", GroupFFDHE2048: "ffdhe2048", GroupFFDHE3072: "ffdhe3072", GroupFFDHE4096: "ffdhe4096",
	GroupFFDHE6144: "ffdhe6144", GroupFFDHE8192: "ffdhe8192",
}

// GroupName names a key-exchange group as the TLS registry does
// (x25519, secp256r1, X25519MLKEM768, ffdhe2048): the one spelling of a
// group in every output. A group the registry assigned after this table
// keeps Go's name, CurveID(n) when Go has none.
func GroupName(id tls.CurveID) string {
	if name, ok := registryNames[id]; ok {
		return name
	}
	return id.String()
}

// offered are the groups crypto/tls can offer, so the only ones a
// client's group list may hold.
var offered = []tls.CurveID{tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024,
	tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}

// groupAliases are the other spellings users type for the NIST curves:
// OpenSSL's and nginx's (ssl_ecdh_curve prime256v1 or P-256) and curl's.
var groupAliases = map[string]tls.CurveID{
	"prime256v1": tls.CurveP256, "p-256": tls.CurveP256, "p256": tls.CurveP256,
	"p-384": tls.CurveP384, "p384": tls.CurveP384,
	"p-521": tls.CurveP521, "p521": tls.CurveP521,
}

// lookupGroup finds a group by any of its names, case-insensitively: the
// registry's, OpenSSL's aliases, or Go's identifier (CurveP256).
func lookupGroup(name string) (tls.CurveID, bool) {
	name = strings.ToLower(name)
	if id, ok := groupAliases[name]; ok {
		return id, true
	}
	for id, reg := range registryNames {
		if name == strings.ToLower(reg) {
			return id, true
		}
	}
	for _, id := range offered {
		if name == strings.ToLower(id.String()) {
			return id, true
		}
	}
	return 0, false
}

// ParseGroups reads a list of key exchange groups separated by ':' or
// ',', in preference order, each by its registry name (x25519,
// secp256r1, X25519MLKEM768), OpenSSL's alias (prime256v1, P-256) or Go's
// identifier (CurveP256). A group Go's TLS cannot offer (x448, ffdhe) is
// refused by name rather than dropped without a word.
func ParseGroups(s string) ([]tls.CurveID, error) {
	var out []tls.CurveID
	for _, name := range splitList(s) {
		id, ok := lookupGroup(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("parsing curves: unknown group %q (want x25519, secp256r1 or prime256v1 or P-256, secp384r1, secp521r1, X25519MLKEM768, SecP256r1MLKEM768 or SecP384r1MLKEM1024)", name)
		case !slices.Contains(offered, id):
			return nil, fmt.Errorf("parsing curves: group %s is not one Go's TLS can offer", GroupName(id))
		}
		out = append(out, id)
	}
	if len(out) == 0 {
		return nil, errors.New("parsing curves: empty list")
	}
	return out, nil
}

// IsPostQuantum reports whether the group is a post-quantum hybrid.
func IsPostQuantum(id tls.CurveID) bool {
	switch id {
	case tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024:
		return true
	}
	return false
}
