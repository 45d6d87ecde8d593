package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// facts are the findings-level answers that audit and testssl both give:
// session resumption by ID and by ticket, OCSP stapling, the HSTS
// max-age, the leaf key and an incomplete chain. A nil field is a question the tool did not
// answer (testssl run with a subset of its checks, or audit's check not
// run).
type facts struct {
	SessionID, Ticket, Stapled *bool
	HSTSMaxAge                 *int64
	Key                        string // "RSA 2048", "EC 256"
	// ChainIncomplete: the server leaves out an intermediate (audit's
	// chain-incomplete, testssl's "chain incomplete").
	ChainIncomplete *bool
	// TLS13PSK is audit's answer for TLS 1.3 resumption, which explains a
	// testssl "session ID supported" on a server without a session cache.
	TLS13PSK bool
}

// fromAuditFacts reads the facts of "httpslab audit --json" output.
func fromAuditFacts(path string) (facts, error) {
	var env struct {
		Result struct {
			Resumption struct {
				TLS12SessionID *bool `json:"tls12_session_id"`
				TLS12Ticket    *bool `json:"tls12_ticket"`
				TLS13PSK       *bool `json:"tls13_psk"`
			}
			Chain struct {
				Certs []struct {
					Key string `json:"key_type"`
				}
				Stapled bool
			}
			Findings []struct{ ID string }
			HTTP     struct {
				Status int
				HSTS   struct {
					MaxAge int64 `json:"max_age_s"`
				}
			}
		}
	}
	var f facts
	if err := readJSON(path, &env); err != nil {
		return f, err
	}
	r := env.Result
	f.SessionID, f.Ticket = r.Resumption.TLS12SessionID, r.Resumption.TLS12Ticket
	f.TLS13PSK = r.Resumption.TLS13PSK != nil && *r.Resumption.TLS13PSK
	f.Stapled = &r.Chain.Stapled
	if r.HTTP.Status != 0 {
		f.HSTSMaxAge = &r.HTTP.HSTS.MaxAge
	}
	if len(r.Chain.Certs) > 0 {
		f.Key = keyName(r.Chain.Certs[0].Key)
	}
	incomplete := slices.ContainsFunc(r.Findings, func(fd struct{ ID string }) bool { return fd.ID == "chain-incomplete" })
	f.ChainIncomplete = &incomplete
	return f, nil
}

// keyName turns audit's "ECDSA P-256" and testssl's "EC 256 bits" into
// "EC 256", and "RSA 2048 bits" into "RSA 2048".
func keyName(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), " bits")
	if rest, ok := strings.CutPrefix(s, "ECDSA P-"); ok {
		return "EC " + rest
	}
	return s
}

// hstsSeconds finds testssl's "(=600 seconds)".
var hstsSeconds = regexp.MustCompile(`=(\d+) seconds`)

// fromTestsslFacts reads the facts of "testssl --jsonfile" output.
func fromTestsslFacts(path string) (facts, error) {
	var items []struct{ ID, Finding string }
	var f facts
	if err := readJSON(path, &items); err != nil {
		return f, err
	}
	yes := func(s, word string) *bool { b := strings.HasPrefix(s, word); return &b }
	for _, it := range items {
		switch it.ID {
		case "sessionresumption_ID":
			f.SessionID = yes(it.Finding, "supported")
		case "sessionresumption_ticket":
			f.Ticket = yes(it.Finding, "supported")
		case "OCSP_stapling":
			f.Stapled = yes(it.Finding, "offered")
		case "HSTS":
			if strings.HasPrefix(it.Finding, "not offered") {
				var zero int64
				f.HSTSMaxAge = &zero
			}
		case "HSTS_time":
			if m := hstsSeconds.FindStringSubmatch(it.Finding); m != nil {
				n, err := strconv.ParseInt(m[1], 10, 64)
				if err == nil {
					f.HSTSMaxAge = &n
				}
			}
		case "cert_keySize":
			f.Key = keyName(it.Finding)
		case "cert_chain_of_trust":
			f.ChainIncomplete = yes(it.Finding, "failed (chain incomplete)")
		}
	}
	return f, nil
}

// factDifferences compares audit's facts with a peer's, where both
// answered. A difference with a known cause on the peer's side is
// returned in explained, not in diffs.
func factDifferences(a, b facts) (diffs, explained []string) {
	yn := func(p *bool) string {
		if *p {
			return "yes"
		}
		return "no"
	}
	cmpBool := func(name string, x, y *bool) {
		if x != nil && y != nil && *x != *y {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", name, yn(x), yn(y)))
		}
	}
	if a.SessionID != nil && b.SessionID != nil && !*a.SessionID && *b.SessionID && a.TLS13PSK {
		// testssl resumes "by session ID" with a TLS 1.3 client when the
		// server speaks TLS 1.3, and TLS 1.3 resumes by PSK ticket even
		// without a session cache; audit asks TLS 1.2.
		explained = append(explained, "session ID no vs yes: testssl resumed over TLS 1.3 (a PSK ticket); audit asked TLS 1.2, which did not resume by ID")
	} else {
		cmpBool("session ID", a.SessionID, b.SessionID)
	}
	cmpBool("ticket", a.Ticket, b.Ticket)
	cmpBool("OCSP stapled", a.Stapled, b.Stapled)
	cmpBool("chain incomplete", a.ChainIncomplete, b.ChainIncomplete)
	if a.HSTSMaxAge != nil && b.HSTSMaxAge != nil && *a.HSTSMaxAge != *b.HSTSMaxAge {
		diffs = append(diffs, fmt.Sprintf("HSTS max-age %d vs %d", *a.HSTSMaxAge, *b.HSTSMaxAge))
	}
	if a.Key != "" && b.Key != "" && a.Key != b.Key {
		diffs = append(diffs, fmt.Sprintf("leaf key %s vs %s", a.Key, b.Key))
	}
	return diffs, explained
}

// compareFacts prints audit's facts against testssl's and returns the
// number of differences that have no known cause.
func compareFacts(w io.Writer, a, b facts) int {
	diffs, explained := factDifferences(a, b)
	verdict := "agrees"
	if len(diffs) > 0 {
		verdict = "DIFFERS: " + strings.Join(diffs, "; ")
	}
	fmt.Fprintf(w, "%-9s resumption, OCSP stapling, HSTS, leaf key, chain complete: %s\n", "testssl", verdict)
	for _, e := range explained {
		fmt.Fprintf(w, "          explained: %s\n", e)
	}
	return len(diffs)
}
