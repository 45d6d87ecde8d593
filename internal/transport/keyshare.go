package transport

import (
	"crypto/tls"
	"slices"
)

// Go's crypto/tls (1.24 on) ignores the order of CurvePreferences: it
// offers the groups it is given in its own fixed order (offered, above)
// and sends a key share for the first of them only, plus, when that first
// is a hybrid, one for the hybrid's classic ECDH part if that group is
// offered too. With the defaults a ClientHello thus carries an
// X25519MLKEM768 share (an ML-KEM-768 key pair and an X25519 one) and an
// x25519 share reusing the X25519 key. The only way to choose the key
// share is to choose which groups are offered, which these functions do.

// hybridParts maps each hybrid group to its classic ECDH part.
var hybridParts = map[tls.CurveID]tls.CurveID{
	tls.X25519MLKEM768:     tls.X25519,
	tls.SecP256r1MLKEM768:  tls.CurveP256,
	tls.SecP384r1MLKEM1024: tls.CurveP384,
}

// OfferedGroups returns the groups a client with CurvePreferences prefs
// (nil: Go's defaults) offers, in the order crypto/tls offers them.
func OfferedGroups(prefs []tls.CurveID) []tls.CurveID {
	if len(prefs) == 0 {
		return slices.Clone(offered)
	}
	return slices.DeleteFunc(slices.Clone(offered), func(g tls.CurveID) bool { return !slices.Contains(prefs, g) })
}

// KeyShares returns the groups that a ClientHello offering groups (in
// crypto/tls's order, as OfferedGroups returns them) carries key shares
// for.
func KeyShares(groups []tls.CurveID) []tls.CurveID {
	if len(groups) == 0 {
		return nil
	}
	shares := []tls.CurveID{groups[0]}
	if part, ok := hybridParts[groups[0]]; ok && slices.Contains(groups, part) {
		shares = append(shares, part)
	}
	return shares
}

// LearnedGroups returns the groups to offer once a server chose chosen
// from groups: chosen first, so that its key share is the one computed,
// then the groups crypto/tls orders after it, so that a server that
// wants another still can ask for it with a HelloRetryRequest. Groups
// ordered before chosen cannot stay, as the first would get the share.
// When chosen is a hybrid its classic part is left out, so that only one
// share is computed, unless keepParts (the user listed the groups with
// --curves, and so the part).
func LearnedGroups(chosen tls.CurveID, groups []tls.CurveID, keepParts bool) []tls.CurveID {
	i := slices.Index(groups, chosen)
	if i < 0 {
		return []tls.CurveID{chosen}
	}
	out := slices.Clone(groups[i:])
	if part, ok := hybridParts[chosen]; ok && !keepParts {
		out = slices.DeleteFunc(out, func(g tls.CurveID) bool { return g == part })
	}
	return out
}
