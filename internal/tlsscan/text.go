package tlsscan

// The terminal report. WriteText prints a summary of what the server
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

	"github.com/httpslab/httpslab/internal/transport"
)

// WriteText writes the human report of an audit.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "httpslab audit %s", r.Target)
	if r.HTTP.Server != "" {
		fmt.Fprintf(&b, "  (%s)", r.HTTP.Server)
	}
	fmt.Fprintf(&b, "\n%d connections in %s, RTT %s\n\n", r.Connections, ms(r.Elapsed), ms(r.RTT))
	summary(&b, r)
	if r.Partial {
		b.WriteString("\nFINDINGS not computed: the audit stopped before the enumeration finished\n")
	} else {
		writeFindings(&b, r)
	}
	if len(r.NotChecked) > 0 {
		b.WriteString("\nNot checked:\n")
		for _, n := range r.NotChecked {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFindings writes the findings grouped by category.
func writeFindings(b *strings.Builder, r *Report) {
	for _, c := range []struct {
		cat   Category
		title string
	}{{Speed, "SPEED"}, {Safety, "SAFETY"}, {About, "INFORMATION"}} {
		var fs []Finding
		for _, f := range r.Findings {
			if f.Category == c.cat {
				fs = append(fs, f)
			}
		}
		fmt.Fprintf(b, "\n%s (%d)\n", c.title, len(fs))
		for _, f := range fs {
			writeFinding(b, f, r.RTT)
		}
	}
}

func line(b *strings.Builder, label, format string, args ...any) {
	fmt.Fprintf(b, "%-13s %s\n", label, fmt.Sprintf(format, args...))
}

func summary(b *strings.Builder, r *Report) {
	e := r.Enumeration
	line(b, "Protocols", "%s", versionList(r))
	for i := len(e.Versions) - 1; i >= 0; i-- {
		v := e.Versions[i]
		if !v.Supported {
			continue
		}
		order := "client's order"
		if v.ServerOrder {
			order = "server's order"
		}
		line(b, v.Name, "%s (%s)", suiteNames(v.Suites), order)
	}
	line(b, "Groups", "%s", groupList(e))
	if e.DHBits > 0 {
		line(b, "", "DHE suites use the server's %d-bit prime", e.DHBits)
	}
	if e.HelloRetry {
		line(b, "", "HelloRetryRequest for %s when offered X25519 first", e.HelloRetryGroup)
	}
	n := r.Negotiated
	line(b, "Negotiated", "%s, ALPN %s", strings.Join(slices.DeleteFunc([]string{n.Version, n.Suite, n.Group}, func(s string) bool { return s == "" }), " "),
		orNone(n.ALPN))
	writeChain(b, r.Chain)
	writeResumption(b, r)
	if r.Records.FirstDataRecord > 0 {
		note := ""
		if r.RecordsBody < 16<<10 {
			note = " (the response fits in one record: --large-path names a bigger one)"
		}
		line(b, "First record", "%d bytes, of a response with a %d-byte body%s", r.Records.FirstDataRecord, r.RecordsBody, note)
	}
	writeHTTP(b, r)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func groupList(e *Enumeration) string {
	var parts []string
	for _, v := range []uint16{VersionTLS13, VersionTLS12, VersionTLS11, VersionTLS10} {
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
	return strings.Join(parts, "; ")
}

func writeChain(b *strings.Builder, c Chain) {
	if len(c.Certs) == 0 {
		line(b, "Certificate", "none")
		return
	}
	leaf := c.Certs[0]
	trust := "trusted"
	if !c.Trusted {
		trust = "NOT trusted"
	}
	line(b, "Certificate", "%s, %s, %d in chain, %d bytes, expires in %.1f days, %s", leaf.Key, leaf.Signature,
		len(c.Certs), c.Bytes, time.Duration(c.ExpiresIn).Hours()/24, trust)
	staple := "no OCSP responder"
	if len(c.OCSPServers) > 0 {
		staple = "OCSP responder " + strings.Join(c.OCSPServers, ", ") + ", stapled: " + yesNo(c.Stapled)
	}
	line(b, "", "%s", staple)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func tri(b *bool) string {
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

func writeResumption(b *strings.Builder, r *Report) {
	res := r.Resumption
	line(b, "Resumption", "TLS 1.2 session ID %s, ticket %s%s; TLS 1.3 PSK %s%s",
		tri(res.TLS12SessionID), tri(res.TLS12Ticket), ticketSeconds(res.TLS12Ticket, res.TLS12TicketHint, "lifetime hint"),
		tri(res.TLS13PSK), ticketSeconds(res.TLS13PSK, res.TLS13TicketLifetime, "lifetime"))
	if res.Attempts > 0 {
		resumed := ms(res.ResumedHandshake)
		if res.Resumed == 0 {
			resumed = "none"
		}
		line(b, "", "%s: resumed %d of %d; handshake full %s, resumed %s", res.Version, res.Resumed, res.Attempts,
			ms(res.FullHandshake), resumed)
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
	line(b, "0-RTT", "TCP %s; QUIC %s", tcp, quic)
}

func writeHTTP(b *strings.Builder, r *Report) {
	h := r.HTTP
	h3 := "not advertised"
	if r.HTTP3.Advertised {
		h3 = fmt.Sprintf("advertised on UDP %s, reachable: %s", r.HTTP3.Port, yesNo(r.HTTP3.Reachable))
		if r.HTTP3.Reachable {
			h3 += fmt.Sprintf(", handshake %s", ms(r.HTTP3.Handshake))
		}
	}
	line(b, "HTTP/3", "%s", h3)
	enc := orNone(h.ContentEncoding)
	line(b, "HTTP", "%d %s, %d bytes, encoding %s, keep-alive %d of %d", h.Status, h.ContentType, h.BodyBytes, enc,
		h.KeepAliveRequests, keepAliveRequests)
	line(b, "HSTS", "%s", orNone(h.HSTS.Header))
	line(b, "CSP", "%s", orNone(h.CSP))
	var dots []string
	for _, d := range h.Dotfiles {
		dots = append(dots, fmt.Sprintf("%s %d", d.Path, d.Status))
	}
	line(b, "Dotfiles", "%s", orNone(strings.Join(dots, ", ")))
	if rd := r.Redirect; rd != nil {
		line(b, "Plain HTTP", "%s", redirectText(rd))
	}
}

func redirectText(rd *Redirect) string {
	if !rd.Reachable {
		return rd.URL + ": no answer (" + rd.Error + ")"
	}
	var hops []string
	for _, h := range rd.Hops {
		s := fmt.Sprintf("%d", h.Status)
		if h.Location != "" {
			s += " -> " + h.Location
		}
		hops = append(hops, s+" ("+ms(h.Time)+")")
	}
	return rd.URL + ": " + strings.Join(hops, ", ")
}

func writeFinding(b *strings.Builder, f Finding, rtt Duration) {
	fmt.Fprintf(b, "  [%s] %s: %s\n", f.Severity, f.ID, f.Title)
	field := func(label, text string) {
		if text == "" {
			return
		}
		text = strings.ReplaceAll(text, "\n", "\n"+strings.Repeat(" ", 14))
		fmt.Fprintf(b, "      %-8s%s\n", label, text)
	}
	field("seen", f.Evidence)
	field("cost", costText(f.Cost, rtt))
	field("fix", f.Fix)
	why := f.Reason
	if f.Reference != "" {
		why += " (" + f.Reference + ")"
	}
	field("why", why)
}

// costText states a cost. Below transport.MinRTTForRounds the measured RTT is
// loopback computation, not network: round trips are then not stated in
// text, neither as a count nor as time (the JSON keeps them).
func costText(c Cost, rtt Duration) string {
	var parts []string
	switch {
	case c.RoundTrips != 0 && rtt < transport.MinRTTForRounds:
		parts = append(parts, fmt.Sprintf("extra round trips, not priced: the measured RTT (%s) is below %s", ms(rtt), ms(transport.MinRTTForRounds)))
	case c.RoundTrips != 0:
		parts = append(parts, fmt.Sprintf("+%g RTT (%s at the measured RTT)", c.RoundTrips, ms(c.Time)))
	case c.Time != 0:
		parts = append(parts, ms(c.Time))
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
