package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
)

// WriteDemo writes the report of 'httpslab demo'. On loopback: one line
// per variant with the medians of the connect, TLS and wait phases and of
// the total, the total's confidence interval, the handshake bytes and a
// note of what the handshake did; a note on the loopback RTT; the load
// runs; the audit's findings. Behind a link: compare's report.
func WriteDemo(w io.Writer, res *demo.Result) error {
	cmp := res.Comparison
	if res.BehindLink {
		fmt.Fprintf(w, "httpslab demo: %s, %s\nplain HTTP from %s\n\n", res.Server, res.URL, res.HTTPURL)
		if err := Compare(w, cmp); err != nil {
			return err
		}
		return writeDemoPage(w, res)
	}
	fmt.Fprintf(w, "httpslab demo: embedded server %s (and %s), ECDSA P-256, TLS 1.2-1.3, tickets, 0-RTT\n",
		strings.TrimSuffix(res.URL, "/"), strings.TrimSuffix(res.HTTPURL, "/"))
	fmt.Fprintf(w, "%d requests per variant after a warm-up round, interleaved in a new random order each round;\n"+
		"medians, and the %s confidence interval of the total's median in ms\n\n", cmp.Rounds, demoPercent(cmp.Level))
	writeDemoTable(w, cmp)
	writeDemoLoopback(w, cmp.RTT)
	if err := writeDemoPage(w, res); err != nil {
		return err
	}
	if res.Load != nil {
		writeDemoLoad(w, res)
	}
	if res.Audit != nil || res.AuditErr != "" {
		writeDemoAudit(w, res.Audit, res.AuditErr)
	}
	return nil
}

// demoPercent writes a confidence level such as 0.95 as "95%".
func demoPercent(level float64) string { return fmt.Sprintf("%g%%", level*100) }

// writeDemoTable prints one line per variant with the medians.
func writeDemoTable(w io.Writer, cmp *compare.Result) {
	const row = "%-24s %10s %10s %10s %10s %11s %9s  %s\n"
	fmt.Fprintf(w, row, "variant", "connect", "TLS", "wait", "total", demoPercent(cmp.Level)+" CI", "hs bytes", "notes")
	for _, v := range cmp.Variants {
		if v.Total.N == 0 {
			fmt.Fprintf(w, "%-24s failed: %s\n", v.Name, v.Dropped)
			continue
		}
		fmt.Fprintf(w, row, v.Name, demoPhase(v, "connect"), demoPhase(v, "tls"), demoPhase(v, "wait"),
			demoMs(v.Total.Median), demoInterval(v.Total), demoBytes(v.HandshakeBytes), demoNotes(v))
	}
	early := func(v compare.VariantResult) bool {
		return slices.ContainsFunc(v.Samples, func(s compare.Sample) bool { return s.EarlyData })
	}
	if slices.ContainsFunc(cmp.Variants, early) {
		fmt.Fprintf(w, "%-24s the request leaves with the first flight, so its wait overlaps TLS: read its total\n", "0-RTT:")
	}
}

// demoNotes says what the handshake did, so that a "resumed" row that
// did not resume cannot pass unnoticed: compare counts such a request as
// failed, and the count shows it.
func demoNotes(v compare.VariantResult) string {
	n := len(v.Samples)
	tried := n
	for _, c := range v.Errors {
		tried += c
	}
	count := func(of func(compare.Sample) bool) int {
		k := 0
		for _, s := range v.Samples {
			if of(s) {
				k++
			}
		}
		return k
	}
	s := ""
	switch {
	case v.Key.Mode() == transport.KeepAlive:
		s = "no handshake"
	case v.Key.Mode() == transport.Resumed:
		s = fmt.Sprintf("resumed %d/%d", count(func(s compare.Sample) bool { return s.Resumed }), tried)
	case v.Key.Mode() == transport.ZeroRTT:
		s = fmt.Sprintf("0-RTT accepted %d/%d", count(func(s compare.Sample) bool { return s.EarlyData }), tried)
	}
	if first := v.Samples[0]; first.TLSVersion != "" {
		s = strings.TrimSpace(fmt.Sprintf("%s %s %s", first.TLSVersion, first.Group, s))
	}
	if v.Dropped != "" {
		s += " (then dropped: " + v.Dropped + ")"
	}
	return s
}

func demoPhase(v compare.VariantResult, name string) string {
	s, ok := v.Phases[name]
	if !ok || s.N == 0 {
		return "-"
	}
	return demoMs(s.Median)
}

// demoMs formats milliseconds as the demo's columns do: "1.234 ms".
func demoMs(v float64) string { return fmt.Sprintf("%.3f ms", v) }

// demoInterval is the interval of a median in ms, "1.20-1.39", with
// three significant digits; "-" when the sample is too small for one.
func demoInterval(s compare.Summary) string {
	if s.CILevel == 0 {
		return "-"
	}
	return compare.FormatMS(s.Lo) + "-" + compare.FormatMS(s.Hi)
}

func demoBytes(v float64) string {
	if v <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f B", v)
}

// writeDemoLoopback says what the times on loopback are, with the RTT
// measured, so that nobody reads CPU time as network time.
func writeDemoLoopback(w io.Writer, rtt time.Duration) {
	if rtt <= 0 {
		return
	}
	fmt.Fprintf(w, "\nround trip on loopback: %.0f µs (median of the connections): the handshake times above are\n"+
		"CPU, not round trips. 'httpslab demo --rtt 50ms' (root) puts the server behind an emulated link.\n",
		float64(rtt)/float64(time.Microsecond))
}

// writeDemoPage writes the page loads as page's report does, under a
// heading that says what was loaded.
func writeDemoPage(w io.Writer, res *demo.Result) error {
	if res.Page == nil && res.PageErr == "" {
		return nil
	}
	fmt.Fprintf(w, "\npage %s over HTTP/1.1 and HTTP/2 ('httpslab page' for more)\n", demo.PagePath)
	if res.Page == nil {
		fmt.Fprintf(w, "failed: %s\n", termSafe(res.PageErr))
		return nil
	}
	fmt.Fprintf(w, "%d loads per protocol after a warm-up round, interleaved; cold loads\n", res.Page.Rounds)
	return pageBody(w, res.Page, 60)
}

func writeDemoLoad(w io.Writer, res *demo.Result) {
	fmt.Fprintf(w, "\nload: %v per mode, HTTPS HTTP/1.1, %d connections (client and server share this machine)\n", res.LoadTime, res.LoadConns)
	fmt.Fprintf(w, "%-32s %12s %14s %10s %10s  %s\n", "mode", "requests/s", "handshakes/s", "p50", "p99", "handshakes")
	for _, r := range res.Load {
		if r.Err != "" {
			fmt.Fprintf(w, "%-32s failed: %s\n", r.Name, r.Err)
			continue
		}
		hs := "one per connection"
		if r.Name != demo.KeepAlive {
			hs = fmt.Sprintf("%d, %d resumed", r.Handshakes, r.Resumed)
		}
		if r.Errors > 0 {
			hs += fmt.Sprintf("; %d errors", r.Errors)
		}
		fmt.Fprintf(w, "%-32s %12.0f %14.0f %10s %10s  %s\n", r.Name, r.RequestRate, r.HandshakeRate, ms(r.P50), ms(r.P99), hs)
	}
}

// writeDemoAudit prints the audit in a few lines: the counts per
// category and one line per finding; 'httpslab audit' prints the rest.
func writeDemoAudit(w io.Writer, rep *tlsscan.Report, auditErr string) {
	if auditErr != "" {
		fmt.Fprintf(w, "\naudit: failed: %s\n", auditErr)
		return
	}
	counts := map[tlsscan.Category]int{}
	for _, f := range rep.Findings {
		counts[f.Category]++
	}
	fmt.Fprintf(w, "\naudit of the embedded server (%s): %d speed, %d safety, %d information findings\n",
		rep.Elapsed.Round(time.Millisecond), counts[tlsscan.Speed], counts[tlsscan.Safety], counts[tlsscan.About])
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "  %-7s %-8s %-22s %s\n", f.Category, "["+f.Severity.String()+"]", f.ID, f.Title)
	}
}
