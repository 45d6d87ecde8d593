package tlsscan

import (
	"fmt"
	"slices"
	"strings"
)

// clientRules are the rules on the simulated clients.
var clientRules = []rule{ruleClientsFail}

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
