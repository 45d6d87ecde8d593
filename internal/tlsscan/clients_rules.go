package tlsscan

import (
	"fmt"
	"slices"
	"strings"
)

// clientRules are the rules on the simulated clients.
var clientRules = []rule{ruleClientsFail, ruleClientOrder}

// refClients names where the clients' parameters come from.
const refClients = "the clients' own documentation, named for each in httpslab's clients.json"

// ruleClientsFail reports the current clients that the simulation says
// cannot connect, with the nginx lines that let them in: an outage for
// their users.
func ruleClientsFail(r *Report) []Finding {
	var failed []ClientResult
	for _, c := range r.Clients {
		if c.Current && !c.OK {
			failed = append(failed, c)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	var names, why []string
	var fix []string
	addFix := func(lines ...string) {
		for _, l := range lines {
			if !slices.Contains(fix, l) {
				fix = append(fix, l)
			}
		}
	}
	for _, c := range failed {
		names = append(names, c.Client)
		why = append(why, c.Client+": "+c.Failure)
		switch {
		case strings.HasPrefix(c.Failure, "no common protocol version"):
			addFix("ssl_protocols TLSv1.2 TLSv1.3;")
		case strings.HasPrefix(c.Failure, "no common cipher suite"):
			addFix("ssl_protocols TLSv1.2 TLSv1.3;", mozillaCiphers)
		case strings.HasPrefix(c.Failure, "no common key-exchange group"):
			addFix("ssl_ecdh_curve X25519:prime256v1:secp384r1;")
		case strings.HasPrefix(c.Failure, "DH prime"):
			addFix("# make a 2048-bit prime: openssl dhparam -out "+dhparamFile+" 2048", "ssl_dhparam "+dhparamFile+";")
		case strings.HasPrefix(c.Failure, "RSA key"):
			addFix("# a new key of 2048 bits or more: openssl req -new -newkey rsa:2048 ..., and a certificate for it",
				"ssl_certificate /etc/nginx/cert.pem;", "ssl_certificate_key /etc/nginx/key.pem;")
		}
	}
	return one(Finding{ID: "clients-fail", Severity: High, Category: Safety,
		Title:     fmt.Sprintf("%d current client(s) cannot connect: %s", len(failed), strings.Join(names, ", ")),
		Evidence:  strings.Join(why, "; ") + " (simulated from the versions, suites, groups and key sizes found)",
		Cost:      Cost{Fails: strings.Join(names, ", ")},
		Fix:       strings.Join(fix, "\n"),
		Reason:    "clients in use today cannot reach the site at all",
		Reference: refClients + "; " + refMozilla})
}

// suiteRank orders suites from strong to broken: AEAD with forward
// secrecy 0, CBC 1, RSA key exchange 2, broken 3.
func suiteRank(id uint16) int {
	t := traitsOf(id)
	switch {
	case t.Weak:
		return 3
	case t.NoForwardSecrecy:
		return 2
	case t.CBC:
		return 1
	}
	return 0
}

// ruleClientOrder reports a server that takes the client's order of the
// suites before TLS 1.3 (nginx's ssl_prefer_server_ciphers off, its
// default). With AEAD suites only it is Mozilla's intermediate profile:
// each client picks what its hardware does fast. With weaker suites
// accepted as well, a client that lists one of them first gets it although
// it offers a stronger one the server accepts: the simulated clients that
// do are named.
func ruleClientOrder(r *Report) []Finding {
	var versions []string
	for _, v := range r.Enumeration.Versions {
		// One suite has no order to impose; TLS 1.3's are all AEAD.
		if v.Supported && v.Version != VersionTLS13 && len(v.Suites) > 1 && !v.ServerOrder {
			versions = append(versions, v.Name)
		}
	}
	if len(versions) == 0 {
		return nil
	}
	f := Finding{ID: "cipher-order-client", Severity: Info, Category: About,
		Title:    "the client chooses the cipher suite in " + strings.Join(versions, ", "),
		Evidence: "offered in reverse order, the server's choice followed the client's",
		Reason: "every suite accepted is an AEAD with forward secrecy, so the client's choice is as safe as the server's " +
			"(Mozilla's intermediate profile leaves it to the client, which picks ChaCha20 without AES hardware)",
		Reference: refMozilla + "; " + refNginxSSL + "#ssl_prefer_server_ciphers"}
	weaker := weakerByClientOrder(r)
	if len(weaker) == 0 {
		if len(acceptedSuites(r, func(t suiteTraits) bool { return t.CBC || t.Weak || t.NoForwardSecrecy })) > 0 {
			f.Reason = "none of the simulated clients lists a weaker suite first, but a client that does gets it"
			f.Fix = "ssl_prefer_server_ciphers on;  # ssl_ciphers then decides: list the strongest first"
		}
		return one(f)
	}
	var names []string
	for _, w := range weaker {
		names = append(names, w.client)
	}
	f.Severity, f.Category = Low, Safety
	f.Title += ", and weaker suites are accepted"
	f.Evidence += "; " + strings.Join(weakerText(weaker), "; ") + " (simulated)"
	f.Cost = Cost{Note: "clients that get a weaker suite than one they offer: " + strings.Join(names, ", ")}
	f.Fix = "ssl_prefer_server_ciphers on;  # ssl_ciphers then decides: list the strongest first"
	f.Reason = "a client that lists a CBC, RSA key-exchange or broken suite first gets it, although it and the server both have a stronger one"
	return one(f)
}

// weakClient is a simulated client that gets a weaker suite than one it
// offers and the server accepts.
type weakClient struct{ client, got, could string }

func weakerText(ws []weakClient) []string {
	var out []string
	for _, w := range ws {
		out = append(out, fmt.Sprintf("%s gets %s, and offers %s", w.client, w.got, w.could))
	}
	return out
}

// weakerByClientOrder lists the simulated clients whose suite, chosen by
// the client's order, ranks below another suite they offer that the
// server accepts in the same version.
func weakerByClientOrder(r *Report) []weakClient {
	cs, err := SimClients()
	if err != nil {
		return nil
	}
	var out []weakClient
	for _, res := range r.Clients {
		i := slices.IndexFunc(cs, func(c SimClient) bool { return c.Name == res.Client })
		if !res.OK || i < 0 || res.Version == "" {
			continue
		}
		vr := slices.IndexFunc(r.Enumeration.Versions, func(v VersionResult) bool { return v.Name == res.Version })
		if vr < 0 || r.Enumeration.Versions[vr].ServerOrder || r.Enumeration.Versions[vr].Version == VersionTLS13 {
			continue
		}
		got := slices.IndexFunc(cs[i].suites, func(id uint16) bool { return SuiteName(id) == res.Suite })
		if got < 0 {
			continue
		}
		best := cs[i].suites[got]
		for _, id := range cs[i].suites {
			accepted := slices.ContainsFunc(r.Enumeration.Versions[vr].Suites, func(s Suite) bool { return s.ID == id })
			if accepted && suiteRank(id) < suiteRank(best) {
				best = id
			}
		}
		if best != cs[i].suites[got] {
			out = append(out, weakClient{res.Client, res.Suite, SuiteName(best)})
		}
	}
	return out
}
