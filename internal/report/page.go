package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/transport"
)

// Page writes the human report of page loads: one line per protocol, the
// differences between neighbouring protocols, the failures, and a
// waterfall of each protocol's median load.
//
// Protocol columns: n (measured loads), the median page load time in ms
// with its confidence interval, the median TTFB of the document, and the
// medians over the loads of the requests, failed requests, connections,
// TLS or QUIC handshakes (of which resumed), handshake and payload bytes
// on the wire, and the process CPU time per load.
func Page(w io.Writer, res *page.Result, width int) error {
	mode := "cold loads (new connections, no TLS resumption, no cache)"
	if res.Warm {
		mode = "warm loads (TLS sessions resumed from the load before, no cache)"
	}
	fmt.Fprintf(w, "page %s\n%d rounds, protocols interleaved in a shuffled order; %s\n", res.URL, res.Rounds, mode)
	if res.Engine == page.EngineChromium {
		fmt.Fprintln(w, "loaded by headless Chromium, a fresh profile per load: load times are the browser's load event (Navigation Timing),\nrequests and phases from its network events; scripts, layout and decoding are in them")
	}
	if res.ResponseCost > 0 || res.ResponseCostPerMB > 0 || res.ResponseDelay > 0 {
		fmt.Fprintf(w, "with a modelled browser (--response-cost, --response-cost-per-mb, --response-delay): each response ready %s ms after it arrives, then processed\nfor %s ms plus %s ms per MB of its body, one at a time in that order, before its request completes and frees its connection or stream;\nthe load times include it\n",
			compare.FormatMS(exactMS(res.ResponseDelay)), compare.FormatMS(exactMS(res.ResponseCost)), compare.FormatMS(exactMS(res.ResponseCostPerMB)))
	}
	if res.TightLimit > 0 {
		fmt.Fprintf(w, "with a modelled tight mode (--tight-limit, --tight-until, --tight-burst-cost): at most %d low-priority requests (images, async scripts)\nin flight and every other request held, until %s ms after the document completed plus %s ms per request held then\n",
			res.TightLimit, compare.FormatMS(exactMS(res.TightUntil)), compare.FormatMS(exactMS(res.TightBurstCost)))
	}
	fmt.Fprintln(w)
	return pageBody(w, res, width)
}

// pageBody is the report of page loads after its heading: the protocols'
// table, the differences, the failures and the waterfalls.
func pageBody(w io.Writer, res *page.Result, width int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "protocol\tn\tload ms\t%.0f%% CI\tTTFB ms\trequests\tfailed\tconns\thandshakes\thandshake B\tpayload B\tcpu ms\t\n", res.Level*100)
	for _, p := range res.Protocols {
		if p.LoadTime.N == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t\n", p.Protocol)
			continue
		}
		hs := fmt.Sprintf("%.0f", p.Handshakes)
		if p.Resumed > 0 {
			hs += fmt.Sprintf(" (%.0f resumed)", p.Resumed)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%s\t%s\t%s\t%s\t\n", p.Protocol, p.LoadTime.N,
			compare.FormatMS(p.LoadTime.Median), pageCI(p.LoadTime), compare.FormatMS(p.TTFB.Median), p.Requests, p.Failed, p.Conns,
			hs, groupDigits(int64(p.HandshakeBytes)), groupDigits(int64(p.PayloadBytes)), compare.FormatMS(exactMS(p.CPU)))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the page report: %w", err)
	}
	pageBrowserCPU(w, res)
	pageDifferences(w, res)
	pageFailures(w, res)
	for _, p := range res.Protocols {
		if p.Median != nil {
			fmt.Fprintln(w)
			PageWaterfall(w, p.Median, width)
		}
	}
	return nil
}

func pageCI(s compare.Summary) string {
	if s.CILevel == 0 {
		return "(n too small)"
	}
	return compare.FormatMS(s.Lo) + " to " + compare.FormatMS(s.Hi)
}

// pageBrowserCPU says, for browser loads, how much CPU the browser's
// processes took per load and how many cores that kept busy over the
// load time: where it nears the machine's cores, the browser's own work,
// not the network, paces the load.
func pageBrowserCPU(w io.Writer, res *page.Result) {
	var parts []string
	for _, p := range res.Protocols {
		if p.BrowserCPU > 0 && p.LoadTime.Median > 0 {
			parts = append(parts, fmt.Sprintf("%s %s ms (%.1f cores)", p.Protocol, compare.FormatMS(exactMS(p.BrowserCPU)),
				exactMS(p.BrowserCPU)/p.LoadTime.Median))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "the browser's CPU per load (median, all its processes, over the load time): %s\n", strings.Join(parts, ", "))
	}
}

// pageDifferences lists the difference of each protocol from the one
// before it: the Hodges-Lehmann shift of the load time with its interval
// and the Mann-Whitney p-value, "~" when not significant.
func pageDifferences(w io.Writer, res *page.Result) {
	if len(res.Differences) == 0 {
		return
	}
	fmt.Fprintf(w, "\ndifferences in load time (to minus from; shift with its %.0f%% interval, Mann-Whitney p):\n", (1-res.Alpha)*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, d := range res.Differences {
		s := compare.FormatSignedMS(d.Diff.MS) + " ms"
		if d.Diff.CILevel > 0 {
			s += " [" + compare.FormatSignedMS(d.Diff.Lo) + ", " + compare.FormatSignedMS(d.Diff.Hi) + "]"
		}
		if res.RTT >= transport.MinRTTForRounds {
			s += fmt.Sprintf(" (%+.1f RTT)", d.Diff.MS/exactMS(res.RTT))
		}
		p := fmt.Sprintf("p=%.3f", d.Diff.P)
		if d.Diff.P < 0.001 {
			p = "p<0.001"
		}
		mark := " "
		if !d.Diff.Significant {
			mark = "~"
		}
		fmt.Fprintf(tw, "  %s\t%s → %s\t%s %s\t%s\n", d.Name, d.From, d.To, mark, s, p)
	}
	tw.Flush()
	fmt.Fprint(w, "  (~: no significant difference")
	if res.RTT > 0 {
		fmt.Fprintf(w, "; RTT %s ms: per load its shortest TCP connect or QUIC handshake, the median over the loads", compare.FormatMS(exactMS(res.RTT)))
	}
	fmt.Fprintln(w, ")")
}

// pageFailures lists failed loads and, from each median load, its failed
// requests by error.
func pageFailures(w io.Writer, res *page.Result) {
	for _, p := range res.Protocols {
		if p.Dropped != "" {
			fmt.Fprintf(w, "\n%s: not measured further: %s\n", p.Protocol, termSafe(p.Dropped))
		}
		for _, e := range slices.Sorted(maps.Keys(p.Errors)) {
			fmt.Fprintf(w, "%s: %s: %s\n", p.Protocol, plural(p.Errors[e], "failed load"), termSafe(e))
		}
		if p.Median == nil || p.Median.Failed == 0 {
			continue
		}
		byErr := map[string]int{}
		for _, r := range p.Median.Requests {
			if r.Failed() {
				byErr[r.Error]++
			}
		}
		fmt.Fprintf(w, "\n%s: %d of %d requests of the median load failed; the load completed without them:\n", p.Protocol, p.Median.Failed, len(p.Median.Requests))
		for _, e := range slices.Sorted(maps.Keys(byErr)) {
			fmt.Fprintf(w, "  %d × %s\n", byErr[e], termSafe(e))
		}
	}
}

// Lane marks of the page waterfall, from the weakest to the strongest:
// where phases of several requests share a column, the strongest shows.
const (
	markIdle     = '.'
	markConnect  = 'c'
	markTLS      = 't'
	markWait     = '-'
	markDownload = '='
	markProcess  = 'p'
)

var phaseMarks = map[string]byte{
	page.PhaseConnect: markConnect, page.PhaseTLS: markTLS, page.PhaseSend: markWait,
	page.PhaseWait: markWait, page.PhaseDownload: markDownload, page.PhaseProcess: markProcess,
}

var markRank = map[byte]int{' ': 0, markIdle: 1, markConnect: 2, markTLS: 3, markProcess: 4, markWait: 5, markDownload: 6}

// PageWaterfall draws one load with one lane per connection: its connect
// and TLS handshake, then its requests' waiting (send and wait) and
// downloading, width columns for the whole load. HTTP/1.1's six lanes and
// HTTP/2's one multiplexed lane show side by side; queueing, before a
// request has a connection, shows as the gap before its lane fills.
func PageWaterfall(w io.Writer, ld *page.Load, width int) {
	width = max(width, 20)
	legend := "c connect, t TLS, - waiting, = downloading, . idle"
	if ld.PhaseTotals[page.PhaseProcess] > 0 {
		legend = "c connect, t TLS, - waiting, = downloading, p processing, . idle"
	}
	fmt.Fprintf(w, "median load over %s: %s ms, %s, %s (%s)\n",
		ld.Protocol, compare.FormatMS(exactMS(ld.Duration)), plural(len(ld.Requests), "request"), plural(len(ld.Conns), "connection"), legend)
	if ld.Engine != "" {
		fmt.Fprintf(w, "  the browser's (%s): load event %s ms, DOMContentLoaded %s ms, largest contentful paint %s ms\n", termSafe(ld.Browser),
			compare.FormatMS(exactMS(ld.Duration)), compare.FormatMS(exactMS(ld.DOMContentLoaded)), compare.FormatMS(exactMS(ld.LCP)))
	}
	if s := browserCPU(ld); s != "" {
		fmt.Fprintf(w, "  the browser's CPU during the load: %s\n", s)
	}
	if s := phaseShares(ld); s != "" {
		fmt.Fprintf(w, "  the requests' time: %s\n", s)
	}
	if ld.Skipped > 0 {
		// A page that names more than the load fetches is measured in
		// part: say so, or the request count reads as the whole page.
		noun := "resources the page named were"
		if ld.Skipped == 1 {
			noun = "resource the page named was"
		}
		fmt.Fprintf(w, "  %s %s left out (over --max-resources, or stylesheets imported past %d levels)\n",
			groupDigits(int64(ld.Skipped)), noun, page.DefaultMaxCSSDepth)
	}
	lanes := pageLanes(ld, width)
	labels := make([]string, len(ld.Conns))
	wide := 0
	for i, c := range ld.Conns {
		labels[i] = fmt.Sprintf("%d %s %s", c.ID, termSafe(strings.TrimPrefix(strings.TrimPrefix(c.Origin, "https://"), "http://")), c.Proto)
		wide = max(wide, len(labels[i]))
	}
	for i, c := range ld.Conns {
		fmt.Fprintf(w, "  %-*s |%s| %d req\n", wide, labels[i], lanes[c.ID], c.Requests)
	}
	total := compare.FormatMS(exactMS(ld.Duration))
	fmt.Fprintf(w, "  %-*s  0%s%s ms\n", wide, "", strings.Repeat(" ", max(width-len(total)-1, 0)), total)
}

// browserCPU lists a browser load's CPU time by process type, the
// largest first: "2,150 ms: renderer 1,020, network 600, ...".
func browserCPU(ld *page.Load) string {
	var total time.Duration
	kinds := slices.Collect(maps.Keys(ld.BrowserCPU))
	for _, k := range kinds {
		total += ld.BrowserCPU[k]
	}
	if total <= 0 {
		return ""
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if c := cmp.Compare(ld.BrowserCPU[b], ld.BrowserCPU[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = termSafe(k) + " " + compare.FormatMS(exactMS(ld.BrowserCPU[k]))
	}
	return fmt.Sprintf("%s ms (%s)", compare.FormatMS(exactMS(total)), strings.Join(parts, ", "))
}

// phaseShares says how the requests' time, added up, splits into
// queueing, handshakes, sending and waiting, and downloading.
func phaseShares(ld *page.Load) string {
	var total time.Duration
	for _, d := range ld.PhaseTotals {
		total += d
	}
	if total <= 0 {
		return ""
	}
	t := ld.PhaseTotals
	share := func(d time.Duration) float64 { return 100 * float64(d) / float64(total) }
	s := fmt.Sprintf("%.0f%% queued, %.0f%% handshakes, %.0f%% waiting, %.0f%% downloading",
		share(t[page.PhaseQueued]), share(t[page.PhaseConnect]+t[page.PhaseTLS]),
		share(t[page.PhaseSend]+t[page.PhaseWait]), share(t[page.PhaseDownload]))
	if t[page.PhaseProcess] > 0 {
		s += fmt.Sprintf(", %.0f%% processing", share(t[page.PhaseProcess]))
	}
	return s
}

// pageLanes paints one lane of width columns per connection, by ID:
// its open time idle, its connect and handshake, then its requests'
// phases, the strongest mark winning where they share a column.
func pageLanes(ld *page.Load, width int) map[int][]byte {
	col := func(d time.Duration) int {
		if ld.Duration <= 0 {
			return 0
		}
		return min(int(int64(d)*int64(width)/int64(ld.Duration)), width-1)
	}
	paint := func(lane []byte, from, to time.Duration, m byte) {
		for i := max(col(from), 0); i <= col(max(to, from)); i++ {
			if markRank[m] > markRank[lane[i]] {
				lane[i] = m
			}
		}
	}
	lanes := map[int][]byte{}
	for _, c := range ld.Conns {
		lane := []byte(strings.Repeat(" ", width))
		paint(lane, c.Start, max(c.End, c.Start), markIdle)
		hs := c.Start
		if c.Connected > 0 {
			paint(lane, c.Start, c.Connected, markConnect)
			hs = c.Connected
		}
		if c.TLSVersion != "" && c.Ready > 0 {
			paint(lane, hs, c.Ready, markTLS)
		}
		lanes[c.ID] = lane
	}
	for _, r := range ld.Requests {
		if lane, ok := lanes[r.Conn]; ok {
			for _, ph := range r.Phases {
				if m, ok := phaseMarks[ph.Name]; ok {
					paint(lane, ph.Start, ph.Start+ph.Duration, m)
				}
			}
		}
	}
	return lanes
}

// termSafe escapes what a terminal would act on in a string from the
// network or a page (control characters, escape sequences): the
// characters that are not printable are written as Go escapes.
func termSafe(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}
