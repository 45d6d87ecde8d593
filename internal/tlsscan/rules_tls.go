package tlsscan

import (
	"crypto/tls"
	"fmt"
	"slices"
	"strings"
)

// tlsRules are the handshake-level rules.
var tlsRules = []rule{
	ruleTLS13Missing, ruleTLS12Missing, ruleOldVersions, ruleHelloRetry, ruleWeakSuites, ruleCBC,
	ruleNoForwardSecrecy, ruleSmallDH, ruleResumption, ruleResumptionRate, ruleEarlyData,
	ruleChainSize, ruleNeedlessRoot, ruleBigRSA, ruleCertTrust, ruleChainIncomplete, ruleSerial, ruleRevocation, ruleStapling, ruleRecordSize, ruleSmallRecords,
}

func supports(r *Report, v uint16) bool {
	vr := r.Enumeration.Version(v)
	return vr != nil && vr.Supported
}

func ruleTLS13Missing(r *Report) []Finding {
	if supports(r, VersionTLS13) {
		return nil
	}
	c := r.rtts(max(r.fullRounds()-1, 1), "per full handshake")
	c.Note = fmt.Sprintf("a full %s handshake took %g round trips here, TLS 1.3 takes 1", r.Negotiated.Version, r.fullRounds())
	return one(Finding{ID: "tls13-missing", Severity: Medium, Category: Speed, Title: "TLS 1.3 is not offered",
		Evidence: "versions accepted: " + versionList(r), Cost: c,
		Fix:       "ssl_protocols TLSv1.2 TLSv1.3;  # needs OpenSSL 1.1.1 or later",
		Reason:    "TLS 1.3 saves a round trip on every new connection and removes legacy cipher suites",
		Reference: refRFC8446 + "; " + refMozilla})
}

func versionList(r *Report) string {
	var n []string
	for _, v := range r.Enumeration.Supported() {
		n = append(n, tls.VersionName(v))
	}
	if len(n) == 0 {
		return "none"
	}
	return strings.Join(n, ", ")
}

func ruleTLS12Missing(r *Report) []Finding {
	if supports(r, VersionTLS12) || !supports(r, VersionTLS13) {
		return nil
	}
	return one(Finding{ID: "tls12-missing", Severity: Info, Category: About, Title: "only TLS 1.3 is offered",
		Evidence:  "versions accepted: " + versionList(r),
		Fix:       "ssl_protocols TLSv1.2 TLSv1.3;  # if clients older than 2018 must connect",
		Reason:    "Mozilla's \"modern\" profile; clients without TLS 1.3 (old Android, Java 8, embedded) cannot connect",
		Reference: refMozilla})
}

func ruleOldVersions(r *Report) []Finding {
	var out []Finding
	for _, v := range []uint16{VersionSSL30, VersionTLS10, VersionTLS11} {
		if !supports(r, v) {
			continue
		}
		sev := Medium
		if v == VersionSSL30 {
			sev = High
		}
		var attacks []string
		if vr := r.Enumeration.Version(v); v == VersionTLS10 && slices.ContainsFunc(vr.Suites, func(s Suite) bool { return strings.Contains(s.Name, "_CBC_") }) {
			attacks = []string{"BEAST"} // CBC with a predictable IV, before TLS 1.1
		}
		out = append(out, Finding{ID: strings.ToLower(strings.ReplaceAll(tls.VersionName(v), " ", "")) + "-enabled", Attacks: attacks,
			Severity: sev, Category: Safety, Title: tls.VersionName(v) + " is enabled",
			Evidence:  fmt.Sprintf("the server answered a %s ClientHello with a %s ServerHello", tls.VersionName(v), tls.VersionName(v)),
			Fix:       "ssl_protocols TLSv1.2 TLSv1.3;",
			Reason:    tls.VersionName(v) + " is deprecated and lacks modern AEAD cipher suites",
			Reference: refRFC8996 + "; " + refMozilla})
	}
	return out
}

func ruleHelloRetry(r *Report) []Finding {
	if !r.Enumeration.HelloRetry {
		return nil
	}
	return one(Finding{ID: "hello-retry", Severity: Medium, Category: Speed,
		Title:     "a client sending an X25519 key share gets a HelloRetryRequest",
		Evidence:  "ClientHello with an X25519 key share was answered by a HelloRetryRequest for " + r.Enumeration.HelloRetryGroup,
		Cost:      r.helloRetryCost(),
		Fix:       "ssl_ecdh_curve X25519:prime256v1:secp384r1;",
		Reason:    "browsers and Go send an X25519 share first; a server that prefers another group makes them retry",
		Reference: refRFC8446 + " section 4.1.4"})
}

// helloRetryCost is the round trip a HelloRetryRequest adds; when Go's own
// TLS 1.3 handshake met it too, the round trips it took beyond 1.
func (r *Report) helloRetryCost() Cost {
	c := r.rtts(1, "per full TLS 1.3 handshake of browsers and Go clients")
	if r.Negotiated.Version == tls.VersionName(VersionTLS13) && r.Negotiated.HandshakeRounds > 1 {
		c = r.rtts(float64(r.Negotiated.HandshakeRounds-1), c.Per)
		c.Note = fmt.Sprintf("Go's TLS 1.3 handshake took %d round trips here instead of 1", r.Negotiated.HandshakeRounds)
	}
	return c
}

// acceptedSuites returns every accepted suite of TLS 1.2 and older that
// matches keep, with the versions it was seen in.
func acceptedSuites(r *Report, keep func(suiteTraits) bool) []Suite {
	var out []Suite
	for _, v := range r.Enumeration.Versions {
		if v.Version == VersionTLS13 {
			continue
		}
		for _, s := range v.Suites {
			if keep(traitsOf(s.ID)) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

const mozillaCiphers = "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:" +
	"ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;"

// The rules on the accepted cipher suites, each on the suites with its
// traits.
var (
	ruleWeakSuites = suiteRule(func(t suiteTraits) bool { return t.Weak }, Finding{ID: "weak-suites", Severity: High,
		Title:  "broken cipher suites are accepted",
		Reason: "NULL, RC4, DES, 3DES, export and anonymous suites are broken or unauthenticated"})
	ruleCBC = suiteRule(func(t suiteTraits) bool { return t.CBC && !t.Weak }, Finding{ID: "cbc-suites", Severity: Low,
		Title: "CBC cipher suites are accepted",
		Reason: "CBC suites (MAC-then-encrypt) have a history of padding-oracle and timing attacks (LUCKY13); " +
			"Mozilla's intermediate profile has AEAD suites only"})
	ruleNoForwardSecrecy = suiteRule(func(t suiteTraits) bool { return t.NoForwardSecrecy && !t.Weak }, Finding{ID: "no-forward-secrecy",
		Severity: Medium, Title: "suites with RSA key exchange are accepted",
		Reason: "with RSA key exchange, a stolen private key decrypts every recorded session"})
)

// suiteAttacks names the attacks whose conditions the suites are: LUCKY13
// for CBC, SWEET32 for 64-bit block ciphers, RC4, FREAK for export RSA,
// LOGJAM for export DHE.
func suiteAttacks(suites []Suite) []string {
	var out []string
	add := func(name string, match func(n string) bool) {
		if slices.ContainsFunc(suites, func(s Suite) bool { return match(s.Name) }) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	has := func(subs ...string) func(string) bool {
		return func(n string) bool {
			return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(n, sub) })
		}
	}
	add("LUCKY13", has("_CBC_"))
	add("SWEET32", has("3DES", "_DES_", "_DES40_", "_IDEA_", "_RC2_"))
	add("RC4", has("_RC4_"))
	add("FREAK", func(n string) bool { return strings.Contains(n, "_EXPORT") && strings.HasPrefix(n, "TLS_RSA_") })
	add("LOGJAM", func(n string) bool { return strings.Contains(n, "_EXPORT") && strings.Contains(n, "DHE_") })
	return out
}

// suiteRule is a safety rule that reports f when suites with the traits
// are accepted, naming them and the attacks they allow, with Mozilla's
// cipher list as the fix.
func suiteRule(traits func(suiteTraits) bool, f Finding) rule {
	return func(r *Report) []Finding {
		suites := acceptedSuites(r, traits)
		if len(suites) == 0 {
			return nil
		}
		found := f // a copy: the rule may run for several reports at once
		found.Category, found.Evidence, found.Fix, found.Reference = Safety, suiteNames(suites), mozillaCiphers, refMozilla
		// LUCKY13 is cbc-suites' own; the others name what is broken.
		found.Attacks = slices.DeleteFunc(suiteAttacks(suites), func(a string) bool { return a == "LUCKY13" && f.ID != "cbc-suites" })
		return one(found)
	}
}

// dhparamFile is where the dh-small fix puts a new DH prime.
const dhparamFile = "/etc/nginx/dhparam.pem"

func ruleSmallDH(r *Report) []Finding {
	groups := append([]GroupResult{{DHBits: r.Enumeration.DHBits}}, r.Enumeration.Groups...)
	for _, g := range groups {
		if g.DHBits > 0 && g.DHBits < 2048 {
			f := Finding{ID: "dh-small", Severity: Medium, Category: Safety, Title: "DHE prime under 2048 bits", Attacks: []string{"LOGJAM"},
				Evidence: fmt.Sprintf("ServerKeyExchange with a %d-bit prime", g.DHBits),
				Fix:      "# make a 2048-bit prime: openssl dhparam -out " + dhparamFile + " 2048\nssl_dhparam " + dhparamFile + ";",
				Reason:   "DH groups under 2048 bits are within reach of precomputation (Logjam)", Reference: refMozilla + "; https://weakdh.org"}
			if suite, ok := dheFirstTLS12(r); ok {
				// OpenSSL 1.1.1 and 3 at security level 2 abort the
				// handshake ("dh key too small") instead of trying another
				// suite: an outage for them, not only a weakness.
				f.Title = "a DHE prime under 2048 bits is the preferred TLS 1.2 key exchange: OpenSSL clients refuse it"
				f.Evidence += "; a TLS 1.2 client offering ECDHE and DHE as OpenSSL does gets " + suite.Name
				f.Severity = High
				f.Cost.Fails = "every client built on OpenSSL 1.1.1 or 3 at security level 2 (the default of Debian, Ubuntu and RHEL: " +
					"curl, wget, Python, Ruby, PHP, git) with \"dh key too small\" (openssl s_client -tls1_2 shows it)"
				if supports(r, VersionTLS13) {
					f.Severity = Medium
					f.Cost.Fails = "clients built on OpenSSL 1.1.1 or 3 at security level 2 (the default of Debian, Ubuntu and RHEL) " +
						"that are limited to TLS 1.2 (curl --tls-max 1.2, openssl s_client -tls1_2): \"dh key too small\"; " +
						"with TLS 1.3 they do not use DHE"
				}
			}
			return one(f)
		}
	}
	return nil
}

// dheFirstTLS12 reports whether a TLS 1.2 client that offers ECDHE
// before DHE, as OpenSSL's default list does, gets a DHE suite: the
// server imposes an order with DHE first, or accepts no ECDHE suite.
func dheFirstTLS12(r *Report) (Suite, bool) {
	v := r.Enumeration.Version(VersionTLS12)
	if v == nil || !v.Supported || len(v.Suites) == 0 {
		return Suite{}, false
	}
	dhe := func(s Suite) bool { return strings.Contains(s.Name, "_DHE_") }
	if v.ServerOrder {
		return v.Suites[0], dhe(v.Suites[0])
	}
	i := slices.IndexFunc(v.Suites, dhe)
	if i < 0 || slices.ContainsFunc(v.Suites, func(s Suite) bool { return strings.Contains(s.Name, "_ECDHE_") }) {
		return Suite{}, false
	}
	return v.Suites[i], true
}
