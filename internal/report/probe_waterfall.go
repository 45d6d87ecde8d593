package report

// The terminal waterfall, one block per request (per redirect hop with
// -L):
//
//	GET https://127.0.0.1:8443/ → 200 HTTP/2.0 (127.0.0.1:8443)
//	  phase         start    duration                                         round trips
//	  DNS        0.000 ms    0.012 ms  █                                          ·
//	  connect    0.020 ms    0.150 ms  ██                                      1.0 RTT
//	  ...
//	  total                 12.345 ms                                          82.3 RTT
//
// A failed request shows the phase it failed in, from its start to the
// end of the request, marked "failed here". Then come the dial attempts
// (when more than one), the TLS facts, bytes on the wire and the RTT.
// Start is the offset from the start of the request; the bar spans the
// phase on a scale where the full width is the request's total time.
// Round trips are shown for every phase but DNS when an RTT is known (the
// kernel's smoothed RTT, else the TCP connect time).

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
)

// WaterfallOptions tune the waterfall.
type WaterfallOptions struct {
	// Color turns on ANSI colours. The caller decides: ColorEnabled(w)
	// says yes for a terminal without NO_COLOR.
	Color bool
	// Width is the width of the bars in columns; 0 means 40.
	Width int
	// Now is the time certificate expiry is counted from; zero means the
	// start of the final request.
	Now time.Time
}

// phaseLabels are the names the waterfall shows.
var phaseLabels = map[string]string{
	probe.PhaseDNS:      "DNS",
	probe.PhaseConnect:  "connect",
	probe.PhaseTLS:      "TLS",
	probe.PhaseSend:     "send",
	probe.PhaseWait:     "wait",
	probe.PhaseDownload: "download",
}

// Waterfall writes the timeline of each hop, then the facts of the final
// one (TLS, bytes, RTT).
func Waterfall(w io.Writer, hops []probe.Timeline, opt WaterfallOptions) error {
	if len(hops) == 0 {
		return fmt.Errorf("writing waterfall: no requests")
	}
	if opt.Width <= 0 {
		opt.Width = 40
	}
	if opt.Now.IsZero() {
		opt.Now = hops[len(hops)-1].Started
	}
	ew := &errWriter{w: w}
	p := painter(opt.Color)
	for i := range hops {
		if len(hops) > 1 {
			ew.printf("%s\n", p.paint(ansiBold, fmt.Sprintf("hop %d of %d", i+1, len(hops))))
		}
		writeHop(ew, &hops[i], opt)
		ew.printf("\n")
	}
	last := &hops[len(hops)-1]
	writeTLS(ew, last, opt)
	writeBytes(ew, last, p)
	writeRTT(ew, last, p)
	return ew.err
}

// writeHop writes the heading, phase rows, dial attempts and 1xx
// responses of one request.
func writeHop(ew *errWriter, t *probe.Timeline, opt WaterfallOptions) {
	p := painter(opt.Color)
	ew.printf("%s\n", p.paint(ansiBold, hopHeading(t)))
	rtt := t.RTT.Best()
	ew.printf("  %-9s %11s %11s  %-*s  %s\n", "phase", "start", "duration", opt.Width, "", "round trips")
	for _, ph := range t.Phases {
		rt := ""
		if ph.Name != probe.PhaseDNS {
			rt = rtts(ph.Duration, rtt)
		}
		ew.printf("  %-9s %11s %11s  %s  %s\n", rowLabel(t, ph.Name), ms(ph.Start), ms(ph.Duration),
			p.paint(phaseColors[ph.Name], bar(ph, t.Total, opt.Width)), rt)
	}
	if ph, ok := unfinished(t); ok {
		ew.printf("  %-9s %11s %11s  %s  %s\n", rowLabel(t, ph.Name), ms(ph.Start), ms(ph.Duration),
			p.paint(ansiRed, bar(ph, t.Total, opt.Width)), p.paint(ansiRed, "failed here"))
	}
	ew.printf("  %-9s %11s %11s  %-*s  %s\n", "total", "", ms(t.Total), opt.Width, "", rtts(t.Total, rtt))
	if t.Reused {
		ew.printf("  connection reused: no DNS, connect or TLS\n")
	}
	for _, inf := range t.Informational {
		ew.printf("  informational %d at %s\n", inf.Status, ms(inf.At))
	}
	if more := t.InformationalCount - len(t.Informational); more > 0 {
		ew.printf("  and %d more informational responses (%d in all)\n", more, t.InformationalCount)
	}
	writeDials(ew, t.Dials)
	if t.Err != "" {
		ew.printf("  %s %s\n", p.paint(ansiRed, "failed:"), Escape(t.Err))
	}
}

// unfinished returns the phase a failed request was in when it failed,
// from its start to the end of the request, so that the time it spent
// there (a handshake that failed, a server that never answered) shows.
func unfinished(t *probe.Timeline) (probe.Phase, bool) {
	if t.Err == "" {
		return probe.Phase{}, false
	}
	name, start, ok := t.Events.Unfinished()
	if !ok {
		return probe.Phase{}, false
	}
	return probe.Phase{Name: name, Start: start, Duration: max(t.Total-start, 0)}, true
}

// hopHeading is "GET URL → 200 HTTP/2.0 (addr)".
func hopHeading(t *probe.Timeline) string {
	var b strings.Builder
	b.WriteString(t.Method + " " + t.URL)
	if t.Status != 0 {
		fmt.Fprintf(&b, " → %d", t.Status)
	}
	if t.Proto != "" {
		b.WriteString(" " + t.Proto)
	}
	if t.RemoteAddr != "" {
		b.WriteString(" (" + t.RemoteAddr + ")")
	}
	return b.String()
}

// rowLabel is the waterfall's name of a phase of t: the TLS phase of
// HTTP/3 (known from its response, or from its QUIC dial when it
// failed) is "QUIC+TLS", one handshake for transport and TLS.
func rowLabel(t *probe.Timeline, name string) string {
	if name != probe.PhaseTLS {
		return label(name)
	}
	quic := t.Proto == "HTTP/3.0"
	for _, d := range t.Dials {
		quic = quic || d.Network == "udp"
	}
	if quic {
		return "QUIC+TLS"
	}
	return label(name)
}

func label(name string) string {
	if l, ok := phaseLabels[name]; ok {
		return l
	}
	return name
}

// bar draws a phase on a line of width columns where width is the total.
// A phase too short for one column still gets one, so that every phase
// that happened is visible.
func bar(ph probe.Phase, total time.Duration, width int) string {
	if total <= 0 {
		return strings.Repeat(" ", width)
	}
	col := func(d time.Duration) int {
		c := int((int64(d)*int64(width) + int64(total)/2) / int64(total))
		return min(max(c, 0), width)
	}
	from, to := col(ph.Start), col(ph.Start+ph.Duration)
	if to <= from {
		to = from + 1
	}
	if to > width {
		from, to = width-1, width
	}
	return strings.Repeat(" ", from) + strings.Repeat("█", to-from) + strings.Repeat(" ", width-to)
}

// writeDials lists the connection attempts when there was more than one
// (Happy Eyeballs, or a retried address).
func writeDials(ew *errWriter, dials []probe.Dial) {
	if len(dials) < 2 {
		return
	}
	ew.printf("  dial attempts:\n")
	for _, d := range dials {
		result := "connected"
		if d.Err != "" {
			result = Escape(d.Err)
		}
		ew.printf("    %-5s %-28s at %11s  %11s  %s\n", d.Network, d.Addr, ms(d.Start), ms(d.Duration), result)
	}
}

// errWriter keeps the first write error so that the formatters can write
// line after line and check once.
type errWriter struct {
	w   io.Writer
	err error
}

// printf writes a formatted line, trailing blanks removed (padding of
// the last column) so that golden files and terminals stay clean.
func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	s := fmt.Sprintf(format, args...)
	if line, ok := strings.CutSuffix(s, "\n"); ok {
		s = strings.TrimRight(line, " ") + "\n"
	}
	_, e.err = io.WriteString(e.w, s)
}
