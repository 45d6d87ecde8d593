package report

import (
	"fmt"
	"math"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// writeTLS writes what the handshake negotiated and the certificate
// chain; nothing for plain HTTP.
func writeTLS(ew *errWriter, t *probe.Timeline, opt WaterfallOptions) {
	s := t.TLS
	if s == nil {
		return
	}
	p := painter(opt.Color)
	ew.printf("%s\n", p.paint(ansiBold, "TLS"))
	row := func(k, v string) { ew.printf("  %-13s %s\n", k, v) }
	row("version", s.Version)
	row("cipher suite", s.CipherSuite)
	group := s.Group
	if s.PostQuantum {
		group += " (post-quantum hybrid)"
	}
	row("group", orDash(group))
	row("ALPN", orDash(s.ALPN))
	row("resumed", yesNo(s.Resumed))
	hrr := yesNo(s.HelloRetry)
	if s.HelloRetry {
		hrr += " (the server asked for another key share: one more round trip)"
	}
	row("HelloRetry", hrr)
	if s.EarlyData {
		row("0-RTT", "accepted")
	}
	row("OCSP staple", yesNo(s.OCSPStapled))
	verified := yesNo(s.Verified)
	switch {
	case s.Verified:
	case s.VerifyError != "":
		verified += " (-k; without it the check fails: " + Escape(s.VerifyError) + ")"
	case s.VerifyResult == probe.VerifyOK:
		verified += " (-k; the chain would verify, the host name was not checked)"
	default:
		verified += " (-k: the chain was not checked)"
	}
	row("verified", verified)
	writeChain(ew, s, opt.Now)
	ew.printf("\n")
}

// writeChain lists the certificates the server sent.
func writeChain(ew *errWriter, s *probe.TLS, now time.Time) {
	if len(s.Chain) == 0 {
		if s.Resumed {
			ew.printf("  %-13s none sent (resumed session)\n", "chain")
		}
		return
	}
	certs := "certificates"
	if len(s.Chain) == 1 {
		certs = "certificate"
	}
	ew.printf("  %-13s %d %s, %s\n", "chain", len(s.Chain), certs, byteCount(int64(s.ChainBytes)))
	for i, c := range s.Chain {
		ew.printf("    %d %s\n", i, Escape(c.Subject))
		ew.printf("      %s, %s, %s, %s\n", orDash(c.KeyType), orDash(c.SigAlg), byteCount(int64(c.Bytes)), expiry(c.NotAfter, now))
		ew.printf("      issuer %s\n", Escape(c.Issuer))
	}
}

// expiry is "expires 2027-01-01 (in 40 days)" or "EXPIRED 2025-01-01".
func expiry(notAfter, now time.Time) string {
	date := notAfter.UTC().Format("2006-01-02")
	if now.IsZero() {
		return "expires " + date
	}
	days := int(math.Floor(daysUntil(notAfter, now)))
	if days < 0 {
		return fmt.Sprintf("EXPIRED %s (%d days ago)", date, -days)
	}
	return fmt.Sprintf("expires %s (in %d days)", date, days)
}

// daysUntil is the days from now to t, negative when t is past. It
// counts in seconds: time.Time.Sub saturates at about 292 years, and a
// certificate valid until 9999-12-31 read as 106751 days.
func daysUntil(t, now time.Time) float64 {
	secs := float64(t.Unix()-now.Unix()) + float64(t.Nanosecond()-now.Nanosecond())/1e9
	return secs / (24 * 60 * 60)
}

// writeBytes writes the bytes on the wire and what the protocol and TLS
// added to the application's header and body.
func writeBytes(ew *errWriter, t *probe.Timeline, p painter) {
	b := t.Bytes
	if b == (probe.Bytes{}) {
		return
	}
	ew.printf("%s\n", p.paint(ansiBold, "bytes on the wire"))
	if b.HandshakeWritten+b.HandshakeRead > 0 {
		ew.printf("  %-13s written %s, read %s, %s in all before the first request byte\n", "handshake",
			byteCount(b.HandshakeWritten), byteCount(b.HandshakeRead), byteCount(b.HandshakeWritten+b.HandshakeRead))
	}
	ew.printf("  %-13s written %s\n", "request", byteCount(b.RequestWritten))
	ew.printf("  %-13s read %s for header %s + body %s\n", "response",
		byteCount(b.ResponseRead), byteCount(b.HeaderSize), byteCount(b.BodySize))
	ew.printf("  %-13s %s\n", "overhead", overhead(t))
	ew.printf("\n")
}

// overhead is the response bytes read beyond the decoded header and
// body: TLS records and protocol framing. HTTP/2 and HTTP/3 compress
// headers, so the wire can carry less than the decoded header; then the
// difference is not an overhead and is said so rather than shown as a
// negative number.
func overhead(t *probe.Timeline) string {
	b := t.Bytes
	if b.ResponseRead == 0 {
		return "unknown (no response bytes counted)"
	}
	app := b.HeaderSize + b.BodySize
	extra := b.ResponseRead - app
	if extra < 0 {
		return fmt.Sprintf("not measurable: %s on the wire for %s decoded (header compression)",
			byteCount(b.ResponseRead), byteCount(app))
	}
	what := "protocol framing"
	switch {
	case t.Proto == "HTTP/3.0":
		what = "QUIC packets, acknowledgements and HTTP/3 framing"
	case t.TLS != nil:
		what = "TLS records and protocol framing"
	}
	return fmt.Sprintf("%s of %s read (%.1f%%): %s", byteCount(extra), byteCount(b.ResponseRead),
		100*float64(extra)/float64(b.ResponseRead), what)
}

// writeRTT writes the measured round-trip time.
func writeRTT(ew *errWriter, t *probe.Timeline, p painter) {
	r := t.RTT
	if r.Kernel <= 0 && r.Connect <= 0 {
		return
	}
	ew.printf("%s\n", p.paint(ansiBold, "round-trip time"))
	if r.Kernel > 0 {
		src := "TCP_INFO"
		if t.Proto == "HTTP/3.0" {
			src = "QUIC estimate"
		}
		spread := ""
		if r.KernelVar > 0 {
			spread = " ± " + ms(r.KernelVar)
		}
		ew.printf("  %-13s %s%s (%s)\n", "smoothed", ms(r.Kernel), spread, src)
	}
	if r.Connect > 0 {
		ew.printf("  %-13s %s (one round trip)\n", "TCP connect", ms(r.Connect))
	}
	if best := r.Best(); best > 0 && best < transport.MinRTTForRounds {
		ew.printf("  phases are not shown in round trips below %s: the time is computation, not network\n", ms(transport.MinRTTForRounds))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
