package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Status says whether a variant was live and measured.
type Status string

// Variant statuses. A variant is measured when it is the baseline,
// verified or unverified.
const (
	// Verified: what the variant changes showed from outside.
	Verified Status = "verified"
	// Unverified: what it changes cannot be seen from outside
	// (tcp_nopush, ssl_buffer_size); it is measured all the same.
	Unverified Status = "unverified"
	// NotLive: what it changes should show from outside and did not (a
	// directive in a server block that does not serve the URL).
	NotLive Status = "not live"
	// Obsolete: nginx no longer knows the directive and ignores it.
	Obsolete Status = "obsolete"
	// Failed: the variant did not start (nginx -t refused it) or did
	// not answer.
	Failed Status = "failed"
	// Base: the baseline itself.
	Base Status = "baseline"
)

// Measured reports whether variants of this status are measured.
func (s Status) Measured() bool { return s == Verified || s == Unverified || s == Base }

// observable maps directives to the facts of an Observation that they
// change when they take effect.
var observable = map[string][]string{
	"ssl_session_tickets":       {"resumed"},
	"ssl_session_cache":         {"resumed", "resumed by session ID"},
	"ssl_protocols":             {"version"},
	"ssl_ciphers":               {"tls1.2 cipher"},
	"ssl_prefer_server_ciphers": {"tls1.2 cipher"},
	"ssl_ecdh_curve":            {"group"},
	"ssl_buffer_size":           {"tls record size"},
	"ssl_stapling_file":         {"ocsp staple"},
	"ssl_certificate":           {"certificate"},
	"ssl_certificate_key":       {"certificate"},
	"gzip":                      {"content-encoding"},
	"gzip_comp_level":           {"body bytes"},
	"server_tokens":             {"header Server"},
	"http2":                     {"alpn"},
	// nginx announces these in its SETTINGS frame.
	"http2_max_concurrent_streams": {"h2 MAX_CONCURRENT_STREAMS"},
	"http2_body_preread_size":      {"h2 INITIAL_WINDOW_SIZE"},
}

// factsOf returns the facts a change should show in, or none.
func factsOf(c Change) []string {
	if c.Directive == "add_header" {
		// add_header NAME VALUE: the header itself shows it.
		name, _, _ := strings.Cut(c.Value, " ")
		return []string{"header " + canonicalHeader(strings.Trim(name, `"'`))}
	}
	return observable[c.Directive]
}

// canonicalHeader is Go's canonical form of a header name, the form
// Observation keys use.
func canonicalHeader(s string) string {
	parts := strings.Split(strings.ToLower(s), "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}

// verify compares a variant's observation with the baseline's, fact by
// fact, for the facts its changes should move. warnings are nginx -t's:
// a change nginx calls obsolete is ignored by it, and a variant whose
// changes all are is Obsolete; the others are judged on the rest, with
// the ignored ones and nginx's other warnings about them named.
func verify(v Variant, obs, base Observation, warnings []string) (Status, string) {
	var live []Change
	var obsolete, notes []string
	for _, c := range v.Changes {
		about := warningsAbout(warnings, c.Directive)
		if slices.ContainsFunc(about, func(w string) bool { return strings.Contains(w, "directive is obsolete") }) {
			obsolete = append(obsolete, c.Directive)
			notes = append(notes, about...)
			continue
		}
		live = append(live, c)
		for _, w := range about {
			notes = append(notes, "nginx: "+w)
		}
	}
	if len(live) == 0 {
		return Obsolete, strings.Join(notes, "\n")
	}
	status, evidence := verifyLive(live, obs, base)
	if len(obsolete) > 0 {
		evidence += "; obsolete, ignored by nginx: " + strings.Join(obsolete, ", ")
		notes = slices.DeleteFunc(notes, func(w string) bool { return !strings.HasPrefix(w, "nginx: ") })
	}
	if len(notes) > 0 && len(v.Changes) == 1 {
		evidence += "; " + strings.Join(notes, "; ")
	}
	return status, evidence
}

// warningsAbout returns nginx's warnings that name the directive.
func warningsAbout(warnings []string, directive string) []string {
	var out []string
	for _, w := range warnings {
		if strings.Contains(w, fmt.Sprintf("%q directive", directive)) {
			out = append(out, w)
		}
	}
	return out
}

// verifyLive judges changes nginx knows by the facts they should move.
func verifyLive(changes []Change, obs, base Observation) (Status, string) {
	var moved, same, unseen []string
	seen := map[string]bool{}
	for _, c := range changes {
		for _, f := range factsOf(c) {
			if seen[f] {
				continue // ssl_certificate and ssl_certificate_key show in one fact
			}
			seen[f] = true
			if why := seenOnlyIf[f]; why != "" && base[f] == "" && obs[f] == "" {
				unseen = append(unseen, fmt.Sprintf("%s: not seen (%s)", f, why))
				continue
			}
			a, b := orNone(base[f]), orNone(obs[f])
			if a != b {
				moved = append(moved, fmt.Sprintf("%s: %s → %s", f, a, b))
			} else {
				same = append(same, fmt.Sprintf("%s: %s, as in the baseline", f, b))
			}
		}
	}
	switch {
	case len(moved) > 0:
		// A fact that stayed is said too: with several directives changed
		// at once, one of them may do nothing the client sees (a session
		// cache where tickets already resume every session).
		return Verified, strings.Join(slices.Concat(moved, same, unseen), "; ")
	case len(same) > 0:
		return NotLive, strings.Join(same, "; ") + " (is the value nginx's default, does the directive apply to the URL " +
			"measured, or does it need another that is off?)"
	case len(unseen) > 0:
		return Unverified, strings.Join(unseen, "; ")
	}
	return Unverified, "not observable from a client"
}

// seenOnlyIf names the facts that an observation holds only under a
// condition, and the condition: where neither side has one, the
// directive's effect could not show, which is not evidence that it has
// none.
var seenOnlyIf = map[string]string{
	"tls record size": "a response over 64 KiB shows it",
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// verifyCommand compares a command variant's observation with the
// baseline's in every fact: what a placeholder of a command line means is
// the user's, so any fact that moved is the evidence, and a variant with
// none is measured as unverified (its change may not show from outside).
func verifyCommand(obs, base Observation) (Status, string) {
	var moved []string
	for _, f := range slices.Sorted(maps.Keys(unionKeys(obs, base))) {
		if a, b := orNone(base[f]), orNone(obs[f]); a != b {
			moved = append(moved, fmt.Sprintf("%s: %s → %s", f, a, b))
		}
	}
	if len(moved) == 0 {
		return Unverified, "no difference from the baseline seen from a client"
	}
	return Verified, strings.Join(moved, "; ")
}

func unionKeys(a, b Observation) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
