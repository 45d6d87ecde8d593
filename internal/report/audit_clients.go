package report

import (
	"crypto/tls"
	"fmt"
	"strings"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// auditClients writes the simulated clients as a compact table: what
// each gets (version, suite, group, certificate key), or why it fails.
func auditClients(b *strings.Builder, r *tlsscan.Report) {
	if len(r.Clients) == 0 {
		return
	}
	width := 0
	for _, c := range r.Clients {
		width = max(width, len(c.Client))
	}
	failed := 0
	for _, c := range r.Clients {
		if !c.OK {
			failed++
		}
	}
	fmt.Fprintf(b, "\nClients (simulated from the enumeration: %d of %d connect)\n", len(r.Clients)-failed, len(r.Clients))
	for _, c := range r.Clients {
		name := Escape(c.Client)
		if c.Current {
			name += " *"
		}
		if !c.OK {
			fmt.Fprintf(b, "  %-*s  FAILS: %s\n", width+2, name, Escape(c.Failure))
			continue
		}
		group := c.Group
		if c.HelloRetry {
			group += " (after a HelloRetryRequest)"
		}
		fmt.Fprintf(b, "  %-*s  %-7s %-45s %-15s %s\n", width+2, name, c.Version, c.Suite, orNone(group), c.Key)
	}
	b.WriteString("  (* in use today)\n")
	if groupOrderUnknown(r) {
		b.WriteString("  TLS 1.2 groups are the client's first the server accepts: a server that imposes its suite order\n" +
			"  may impose its group order too (nginx with ssl_prefer_server_ciphers on), which audit could not measure here\n")
	}
}

// groupOrderUnknown reports whether a simulated TLS 1.2 ECDHE group may
// be the server's choice rather than the client's: the server imposes
// its suite order, and with it (OpenSSL) its order of groups, which was
// not measured (fewer than two groups found, or the answers said neither).
func groupOrderUnknown(r *tlsscan.Report) bool {
	if r.Enumeration == nil || r.Enumeration.TLS12GroupOrder != "" {
		return false
	}
	v := r.Enumeration.Version(tls.VersionTLS12)
	if v == nil || !v.ServerOrder {
		return false
	}
	for _, c := range r.Clients {
		if c.OK && c.Version == "TLS 1.2" && strings.Contains(c.Suite, "_ECDHE_") {
			return true
		}
	}
	return false
}

// auditClientsTable is the HTML report's table of the simulated clients.
func auditClientsTable(r *tlsscan.Report) table {
	t := table{Caption: "simulated clients (from the enumeration)", Head: []string{"client", "in use today", "connects", "version", "suite", "group", "key", "why it fails"}}
	yes := map[bool]string{true: "yes", false: "no"}
	for _, c := range r.Clients {
		t.Rows = append(t.Rows, []string{c.Client, yes[c.Current], yes[c.OK], c.Version, c.Suite, c.Group, c.Key, c.Failure})
	}
	return t
}
