package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// A verdict row: one finding testssl makes (severity LOW or above, or OK
// for the ids of shownWhenOK), and whether audit makes the same one.
type verdict struct {
	ID, Severity, Finding string
	// Audit lists audit's findings or attack names that say the same;
	// empty when audit says nothing of it.
	Audit []string
	// Known is false when no audit finding is mapped to testssl's id.
	Known bool
	// Refuted is the openssl s_client command, and what it printed, that
	// shows testssl is wrong here; NotMeasured is audit's reason for not
	// making the check.
	Refuted, NotMeasured string
	// Seen is what audit found where it makes no finding (the CAA
	// records it read), for rows testssl rates OK.
	Seen string
}

// testsslToAudit maps testssl ids (by prefix, longest first wins) to the
// audit finding ids or attack names that report the same condition.
var testsslToAudit = []struct {
	prefix string
	audit  []string
}{
	{"cert_chain_of_trust", []string{"chain-incomplete", "cert-untrusted", "cert-expired", "cert-weak-signature"}},
	{"cert_expirationStatus", []string{"cert-expired", "cert-expiring"}},
	{"cert_notAfter", []string{"cert-expired", "cert-expiring"}},
	{"cert_revocation", []string{"cert-no-revocation"}},
	{"cert_signatureAlgorithm", []string{"cert-weak-signature"}},
	{"cert_serialNumberLen", []string{"cert-serial-short"}},
	{"cert_trust", []string{"cert-name-mismatch"}},
	{"cert_keySize", []string{"cert-key-weak"}},
	{"SSLv3", []string{"sslv3-enabled"}},
	{"TLS1_1", []string{"tls1.1-enabled"}},
	{"TLS1_3", []string{"tls13-missing"}},
	{"TLS1", []string{"tls1.0-enabled"}},
	{"cipherlist_NULL", []string{"weak-suites"}},
	{"cipherlist_aNULL", []string{"weak-suites"}},
	{"cipherlist_EXPORT", []string{"weak-suites"}},
	{"cipherlist_LOW", []string{"weak-suites"}},
	{"cipherlist_3DES_IDEA", []string{"weak-suites"}},
	{"cipherlist_AVERAGE", []string{"cbc-suites"}},
	{"cipherlist_OBSOLETED", []string{"cbc-suites", "no-forward-secrecy"}},
	{"cipherlist_STRONG_NOFS", []string{"no-forward-secrecy"}},
	{"FS", []string{"no-forward-secrecy"}},
	{"cipher_order", []string{"cipher-order-client"}},
	{"cipher_negotiated", []string{"cipher-order-client", "cbc-suites"}},
	{"DNS_CAArecord", []string{"caa-missing"}},
	{"BREACH", []string{"BREACH"}},
	{"BEAST", []string{"BEAST"}},
	{"LUCKY13", []string{"LUCKY13"}},
	{"SWEET32", []string{"SWEET32"}},
	{"LOGJAM", []string{"LOGJAM"}},
	{"FREAK", []string{"FREAK"}},
	{"RC4", []string{"RC4"}},
	{"DH_groups", []string{"dh-small"}},
	{"HSTS", []string{"hsts-missing", "hsts-short"}},
	{"X-Frame-Options", []string{"framing-allowed"}},
	{"X-Content-Type-Options", []string{"nosniff-missing"}},
	{"security_headers", []string{"nosniff-missing", "framing-allowed", "referrer-policy-missing", "permissions-policy-missing"}},
	{"cookie_secure", []string{"cookie-flags"}},
	{"cookie_httponly", []string{"cookie-flags"}},
	{"heartbleed", []string{"heartbleed"}},
	{"CCS", []string{"ccs-injection"}},
	{"ticketbleed", []string{"ticketbleed"}},
	{"ROBOT", []string{"robot"}},
	{"secure_renego", []string{"renegotiation-insecure"}},
	{"secure_client_renego", []string{"client-renegotiation", "renegotiation-insecure"}},
	{"CRIME_TLS", []string{"tls-compression"}},
	{"fallback_SCSV", []string{"fallback-scsv-missing"}},
	{"DROWN", []string{"sslv2-drown"}},
	{"POODLE_SSL", []string{"sslv3-poodle"}},
	{"OCSP_stapling", []string{"ocsp-not-stapled", "ocsp-no-responder"}},
}

// shownWhenOK are testssl's ids whose OK rows the table shows too, so
// that audit is seen not to make the finding where testssl does not.
var shownWhenOK = []string{"DNS_CAArecord"}

// mapped returns the audit ids for a testssl id: the entry with the
// longest prefix that matches.
func mapped(id string) ([]string, bool) {
	best := -1
	for i, m := range testsslToAudit {
		if strings.HasPrefix(id, m.prefix) && (best < 0 || len(m.prefix) > len(testsslToAudit[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	return testsslToAudit[best].audit, true
}

// verdicts lists testssl's findings of severity LOW and above with
// audit's findings (ids and named attacks) that say the same.
func verdicts(auditFindings []auditFinding, testssl []testsslItem) []verdict {
	have := map[string]bool{}
	for _, f := range auditFindings {
		have[f.ID] = true
		for _, a := range f.Attacks {
			have[a] = true
		}
	}
	var out []verdict
	for _, it := range testssl {
		if !slices.Contains([]string{"LOW", "MEDIUM", "HIGH", "CRITICAL"}, it.Severity) &&
			(it.Severity != "OK" || !slices.Contains(shownWhenOK, it.ID)) {
			continue
		}
		v := verdict{ID: it.ID, Severity: it.Severity, Finding: it.Finding}
		ids, ok := mapped(it.ID)
		v.Known = ok
		for _, id := range ids {
			if have[id] {
				v.Audit = append(v.Audit, id)
			}
		}
		out = append(out, v)
	}
	return out
}

type auditFinding struct {
	ID      string
	Attacks []string
}

type testsslItem struct{ ID, Severity, Finding string }

// cell is the audit column of a verdict row, and whether the row is a
// finding testssl makes that audit does not (without a refutation).
func (v verdict) cell() (string, bool) {
	switch {
	case v.Severity == "OK" && len(v.Audit) > 0:
		return strings.Join(v.Audit, ", ") + ", where testssl finds nothing", true
	case v.Severity == "OK" && v.NotMeasured != "":
		return "not measured: " + v.NotMeasured, true
	case v.Severity == "OK" && v.Seen != "":
		return "none (" + v.Seen + ")", false
	case v.Severity == "OK":
		return "none", false
	case len(v.Audit) > 0:
		return strings.Join(v.Audit, ", "), false
	case v.Refuted != "":
		return "testssl is wrong: " + v.Refuted, false
	case v.NotMeasured != "":
		return "not measured: " + v.NotMeasured, false
	case v.Known:
		return "NOT FOUND", true
	}
	return "(no such audit check)", true
}

// printVerdicts writes the table and returns how many of testssl's
// findings audit does not make (with no refutation or reason).
func printVerdicts(w io.Writer, vs []verdict) int {
	missing := 0
	fmt.Fprintf(w, "\n%-22s %-9s %-50s %s\n", "testssl finding", "severity", "testssl says", "audit")
	for _, v := range vs {
		a, miss := v.cell()
		if miss {
			missing++
		}
		fmt.Fprintf(w, "%-22s %-9s %-50s %s\n", v.ID, v.Severity, shorten(v.Finding, 50), a)
	}
	return missing
}

// shorten cuts s to n characters, marking the cut.
func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

// compareVerdicts reads both tools' JSON and prints the table.
func compareVerdicts(w io.Writer, auditPath, testsslPath string) (int, error) {
	var env struct {
		Result struct{ Findings []auditFinding }
	}
	if err := readJSON(auditPath, &env); err != nil {
		return 0, err
	}
	var items []testsslItem
	if err := readJSON(testsslPath, &items); err != nil {
		return 0, err
	}
	return printVerdicts(w, verdicts(env.Result.Findings, items)), nil
}
