package report

// The terminal report of audit. Audit prints a summary of what the server
// offers (one labelled line per topic), then the findings grouped as
// SPEED, SAFETY and INFORMATION, each with its evidence, cost, fix and
// reason, then the checks that could not run.

import (
	"crypto/tls"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
)

// Audit writes the human report of an audit.
func Audit(w io.Writer, r *tlsscan.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "httpslab audit %s", r.Target)
	if r.HTTP.Server != "" {
		fmt.Fprintf(&b, "  (%s)", Escape(r.HTTP.Server))
	}
	fmt.Fprintf(&b, "\n%d connections in %s, RTT %s\n\n", r.Connections, auditMS(r.Elapsed), auditMS(r.RTT))
	auditSummary(&b, r)
	auditClients(&b, r)
	if r.Partial {
		b.WriteString("\nFINDINGS not computed: the audit stopped before the enumeration finished\n")
	} else {
		auditFindings(&b, r)
	}
	if len(r.NotChecked) > 0 {
		b.WriteString("\nNot checked:\n")
		for _, n := range r.NotChecked {
			fmt.Fprintf(&b, "  %s\n", Escape(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// auditFindings writes the findings grouped by category.
func auditFindings(b *strings.Builder, r *tlsscan.Report) {
	for _, c := range []struct {
		cat   tlsscan.Category
		title string
	}{{tlsscan.Speed, "SPEED"}, {tlsscan.Safety, "SAFETY"}, {tlsscan.About, "INFORMATION"}} {
		var fs []tlsscan.Finding
		for _, f := range r.Findings {
			if f.Category == c.cat {
				fs = append(fs, f)
			}
		}
		fmt.Fprintf(b, "\n%s (%d)\n", c.title, len(fs))
		for _, f := range fs {
			auditFinding(b, f, r.RTT)
		}
	}
}

func auditLine(b *strings.Builder, label, format string, args ...any) {
	fmt.Fprintf(b, "%-13s %s\n", label, fmt.Sprintf(format, args...))
}

func auditSummary(b *strings.Builder, r *tlsscan.Report) {
	e := r.Enumeration
	auditLine(b, "Protocols", "%s", auditVersions(r))
	for i := len(e.Versions) - 1; i >= 0; i-- {
		v := e.Versions[i]
		if !v.Supported {
			continue
		}
		order := "client's order"
		switch {
		case v.AESGCMIfClientFirst:
			order = "server's order, AES-GCM first only for a client that lists it first, else ChaCha20: Go's crypto/tls"
		case v.ServerOrder:
			order = "server's order"
		}
		auditLine(b, v.Name, "%s (%s)", auditSuites(v.Suites), order)
	}
	auditLine(b, "Groups", "%s", auditGroups(e))
	if e.DHBits > 0 {
		auditLine(b, "", "DHE suites use the server's %d-bit prime", e.DHBits)
	}
	if e.HelloRetry {
		auditLine(b, "", "HelloRetryRequest for %s when offered X25519 first", e.HelloRetryGroup)
	}
	n := r.Negotiated
	auditLine(b, "Negotiated", "%s, ALPN %s", strings.Join(slices.DeleteFunc([]string{n.Version, n.Suite, n.Group}, func(s string) bool { return s == "" }), " "),
		orNone(n.ALPN))
	auditChain(b, r.Chain, r.Started)
	auditResumption(b, r)
	if r.Records.FirstDataRecord > 0 {
		note := ""
		if r.RecordsBody < 16<<10 {
			note = " (the response fits in one record: --large-path names a bigger one)"
		}
		auditLine(b, "First record", "%d bytes, of a response with a %d-byte body%s", r.Records.FirstDataRecord, r.RecordsBody, note)
	}
	auditHTTP(b, r)
	auditCAA(b, r.CAA)
	auditVulns(b, r)
}

// auditCAA writes the DNS CAA line: the records and the name that has
// them, none, or why they were not looked up; for an IP address, which
// names of its certificate were looked up, then one line for each: its
// records and the issuers they allow, none, NXDOMAIN or the error.
func auditCAA(b *strings.Builder, c *tlsscan.CAA) {
	switch {
	case c == nil:
	case c.NotMeasured != "":
		auditLine(b, "DNS CAA", "not measured: %s", Escape(c.NotMeasured))
	case c.OfCertificate && len(c.Names) > 0:
		auditCAANames(b, c)
	case c.Name == "":
		auditLine(b, "DNS CAA", "none at %s%s", Escape(strings.Join(c.Asked, ", ")), caaOf(c))
	default:
		auditLine(b, "DNS CAA", "%s at %s%s", Escape(strings.Join(c.Records, "; ")), Escape(c.Name), caaOf(c))
	}
}

// caaOf says, for an IP address, which name of its certificate the CAA
// line is about.
func caaOf(c *tlsscan.CAA) string {
	if !c.OfCertificate || len(c.Asked) == 0 {
		return ""
	}
	return " (for " + Escape(c.Asked[0]) + ", a name of the certificate: the target is an IP address)"
}

// auditCAANames writes the DNS CAA lines of an IP address: which of its
// certificate's names have no record set, then each name's result.
func auditCAANames(b *strings.Builder, c *tlsscan.CAA) {
	var missing, unknown []string
	for _, n := range c.Names {
		switch {
		case n.NXDomain || n.Error != "":
			unknown = append(unknown, n.Name)
		case n.At == "":
			missing = append(missing, n.Name)
		}
	}
	head := "a record set for every name"
	if len(missing) > 0 {
		head = "none for " + strings.Join(missing, ", ")
	}
	if len(unknown) > 0 {
		head += "; not known for " + strings.Join(unknown, ", ")
	}
	looked := "1 DNS name"
	if len(c.Names) > 1 {
		looked = fmt.Sprintf("%d DNS names", len(c.Names))
	}
	auditLine(b, "DNS CAA", "%s (%s of the certificate looked up: the target is an IP address)", Escape(head), looked)
	for _, n := range c.Names {
		name := n.Name
		if n.Wildcard {
			name = "*." + name
		}
		auditLine(b, "", "%s: %s", Escape(name), Escape(n.Outcome()))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func auditGroups(e *tlsscan.Enumeration) string {
	var parts []string
	for _, v := range []uint16{tlsscan.VersionTLS13, tlsscan.VersionTLS12, tlsscan.VersionTLS11, tlsscan.VersionTLS10} {
		var names []string
		for _, g := range e.Groups {
			if g.Version == v {
				names = append(names, g.Name)
			}
		}
		if len(names) > 0 {
			parts = append(parts, tls.VersionName(v)+": "+strings.Join(names, ", "))
		}
	}
	if len(parts) == 0 {
		return "none found"
	}
	switch e.TLS12GroupOrder {
	case tlsscan.GroupOrderServer:
		parts = append(parts, "before TLS 1.3 the server's order, "+e.TLS12Group+" first")
	case tlsscan.GroupOrderClient:
		parts = append(parts, "before TLS 1.3 the client's order")
	}
	return strings.Join(parts, "; ")
}

func auditChain(b *strings.Builder, c tlsscan.Chain, now time.Time) {
	if len(c.Certs) == 0 {
		auditLine(b, "Certificate", "none")
		return
	}
	leaf := c.Certs[0]
	trust := "trusted"
	if !c.Trusted {
		trust = "NOT trusted"
	}
	auditLine(b, "Certificate", "%s, %s, %d in chain, %d bytes, expires in %.1f days, %s", leaf.KeyType, leaf.SigAlg,
		len(c.Certs), c.Bytes, daysUntil(leaf.NotAfter, now), trust)
	staple := "no OCSP responder"
	if len(c.OCSPServers) > 0 {
		staple = "OCSP responder " + Escape(strings.Join(c.OCSPServers, ", ")) + ", stapled: " + yesNo(c.Stapled)
	}
	auditLine(b, "", "%s", staple)
}

func auditTri(b *bool) string {
	if b == nil {
		return "not checked"
	}
	return yesNo(*b)
}

// ticketSeconds is " (what N s)" for a ticket the server issued; nothing
// when it issued none or was not asked, and "none" for a zero hint (RFC
// 5077 section 3.3: unspecified), so that no lifetime of 0 s is shown.
func ticketSeconds(issued *bool, seconds uint32, what string) string {
	switch {
	case issued == nil || !*issued:
		return ""
	case seconds == 0:
		return " (no " + what + ")"
	}
	return fmt.Sprintf(" (%s %d s)", what, seconds)
}

func auditResumption(b *strings.Builder, r *tlsscan.Report) {
	res := r.Resumption
	auditLine(b, "Resumption", "TLS 1.2 session ID %s, ticket %s%s; TLS 1.3 PSK %s%s",
		auditTri(res.TLS12SessionID), auditTri(res.TLS12Ticket), ticketSeconds(res.TLS12Ticket, res.TLS12TicketHint, "lifetime hint"),
		auditTri(res.TLS13PSK), ticketSeconds(res.TLS13PSK, res.TLS13TicketLifetime, "lifetime"))
	if res.Attempts > 0 {
		resumed := auditMS(res.ResumedHandshake)
		if res.Resumed == 0 {
			resumed = "none"
		}
		auditLine(b, "", "%s: resumed %d of %d; handshake full %s, resumed %s", res.Version, res.Resumed, res.Attempts,
			auditMS(res.FullHandshake), resumed)
	}
	tcp := "not offered"
	if res.MaxEarlyData > 0 {
		tcp = fmt.Sprintf("offered, %d bytes (not sent: Go cannot send early data over TCP)", res.MaxEarlyData)
	} else if res.TLS13PSK == nil {
		tcp = "not checked"
	}
	quic := "not checked (no HTTP/3)"
	if r.HTTP3.Reachable {
		quic = "accepted: " + yesNo(r.HTTP3.EarlyData)
	}
	auditLine(b, "0-RTT", "TCP %s; QUIC %s", tcp, quic)
}

func auditHTTP(b *strings.Builder, r *tlsscan.Report) {
	h := r.HTTP
	h3 := "not advertised"
	if r.HTTP3.Advertised {
		h3 = fmt.Sprintf("advertised on UDP %s, reachable: %s", Escape(r.HTTP3.Port), yesNo(r.HTTP3.Reachable))
		if r.HTTP3.Reachable {
			h3 += fmt.Sprintf(", handshake %s", auditMS(r.HTTP3.Handshake))
		}
	}
	auditLine(b, "HTTP/3", "%s", h3)
	enc := orNone(Escape(h.ContentEncoding))
	if h.Status == 0 {
		auditLine(b, "HTTP", "no response (see Not checked)") // a "0" status would read as one the server sent
	} else {
		auditLine(b, "HTTP", "%d %s, %d bytes, encoding %s, keep-alive %d of %d", h.Status, Escape(h.ContentType), h.BodyBytes, enc,
			h.KeepAliveRequests, tlsscan.KeepAliveRequests)
	}
	if h.Status != 0 {
		// Without a response there are no headers to call missing.
		auditLine(b, "HSTS", "%s", orNone(Escape(h.HSTS.Header)))
		auditLine(b, "CSP", "%s", orNone(Escape(h.CSP)))
		auditLine(b, "Headers", "%s", auditHeaders(h))
		var dots []string
		for _, d := range h.Dotfiles {
			dots = append(dots, fmt.Sprintf("%s %d", d.Path, d.Status))
		}
		auditLine(b, "Dotfiles", "%s", orNone(strings.Join(dots, ", ")))
	}
	if rd := r.Redirect; rd != nil {
		auditLine(b, "Plain HTTP", "%s", auditRedirect(rd))
	}
}

// auditHeaders lists the other security headers and the cookies as sent.
func auditHeaders(h tlsscan.HTTPResult) string {
	var parts []string
	for _, x := range []struct{ name, v string }{{"X-Content-Type-Options", h.ContentTypeOptions}, {"X-Frame-Options", h.FrameOptions},
		{"Referrer-Policy", h.ReferrerPolicy}, {"Permissions-Policy", h.PermissionsPolicy}} {
		if x.v != "" {
			parts = append(parts, x.name+": "+Escape(x.v))
		}
	}
	for _, c := range h.Cookies {
		attrs := []string{}
		for _, a := range []struct {
			on   bool
			name string
		}{{c.Secure, "Secure"}, {c.HTTPOnly, "HttpOnly"}, {c.SameSite != "", "SameSite=" + c.SameSite}} {
			if a.on {
				attrs = append(attrs, a.name)
			}
		}
		parts = append(parts, fmt.Sprintf("cookie %s (%s)", Escape(c.Name), orNone(strings.Join(attrs, ", "))))
	}
	return orNone(strings.Join(parts, "; "))
}

func auditRedirect(rd *tlsscan.Redirect) string {
	if !rd.Reachable {
		return rd.URL + ": no answer (" + Escape(rd.Error) + ")"
	}
	var hops []string
	for _, h := range rd.Hops {
		s := fmt.Sprintf("%d", h.Status)
		if h.Location != "" {
			s += " -> " + Escape(h.Location)
		}
		hops = append(hops, s+" ("+auditMS(h.Time)+")")
	}
	return rd.URL + ": " + strings.Join(hops, ", ")
}

func auditFinding(b *strings.Builder, f tlsscan.Finding, rtt time.Duration) {
	fmt.Fprintf(b, "  [%s] %s: %s\n", f.Severity, f.ID, f.Title)
	field := func(label, text string) {
		if text == "" {
			return
		}
		text = strings.ReplaceAll(text, "\n", "\n"+strings.Repeat(" ", 14))
		fmt.Fprintf(b, "      %-8s%s\n", label, text)
	}
	field("seen", Escape(f.Evidence))
	field("attacks", strings.Join(f.Attacks, ", "))
	field("cost", auditCost(f.Cost, rtt))
	field("fix", f.Fix)
	why := f.Reason
	if f.Reference != "" {
		why += " (" + f.Reference + ")"
	}
	field("why", why)
}

// auditCost states a cost. Below transport.MinRTTForRounds the measured RTT is
// loopback computation, not network: round trips are then not stated in
// text, neither as a count nor as time (the JSON keeps the count, and
// not_priced says why it has no time).
func auditCost(c tlsscan.Cost, rtt time.Duration) string {
	var parts []string
	if c.Fails != "" {
		parts = append(parts, "fails for "+c.Fails)
	}
	switch {
	case c.RoundTrips != 0 && c.NotPriced != "":
		parts = append(parts, "extra round trips, not priced: "+c.NotPriced)
	case c.RoundTrips != 0 && rtt < transport.MinRTTForRounds:
		parts = append(parts, fmt.Sprintf("extra round trips, not priced: the measured RTT (%s) is below %s", auditMS(rtt), auditMS(transport.MinRTTForRounds)))
	case c.RoundTrips != 0:
		parts = append(parts, fmt.Sprintf("+%g RTT (%s at the measured RTT)", c.RoundTrips, auditMS(c.Time)))
	case c.Time != 0:
		parts = append(parts, auditMS(c.Time))
	}
	if c.Bytes != 0 {
		parts = append(parts, fmt.Sprintf("%d bytes", c.Bytes))
	}
	if c.Per != "" {
		parts = append(parts, c.Per)
	}
	s := strings.Join(parts, ", ")
	if c.Note != "" {
		if s != "" {
			s += "; "
		}
		s += c.Note
	}
	return s
}

// auditVersions lists the versions the server accepts, newest first, as
// the Protocols line shows them.
func auditVersions(r *tlsscan.Report) string {
	var n []string
	for _, v := range r.Enumeration.Supported() {
		n = append(n, tls.VersionName(v))
	}
	return orNone(strings.Join(n, ", "))
}

// auditSuites names cipher suites, in the server's order when it has one.
func auditSuites(suites []tlsscan.Suite) string {
	var n []string
	for _, s := range suites {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// auditMS formats a duration in milliseconds, as the findings' evidence
// does: "12.35 ms".
func auditMS(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
