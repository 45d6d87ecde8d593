package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/httpslab/httpslab/internal/stats"
)

// WriteText writes the human report: one line per variant, the effects
// of each dimension, the findings, and the errors.
//
// Variant columns: n (measured requests), median total ms with its
// confidence interval, the median connect, tls and wait phases in ms,
// the shift against the baseline in ms with its interval, the same in
// round trips, the Mann-Whitney p-value ("~" marks a difference that is
// not significant), the median bytes on the wire and process CPU time
// per request.
func (res *Result) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "variant\tn\tmedian ms\t%.0f%% CI\tconnect\ttls\twait\tvs baseline ms\tRTTs\tp\tbytes\tcpu ms\t\n", res.Level*100)
	for i, v := range res.Variants {
		if v.Total.N == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t-\tnot measured\t\t\t-\t-\t\n", v.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", v.Name, v.Total.N, num(v.Total.Median), ciText(v.Total),
			phaseText(v, "connect"), phaseText(v, "tls"), phaseText(v, "wait"), res.diffText(i, v))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the comparison: %w", err)
	}
	res.writeEffects(w)
	res.writeFooter(w)
	return nil
}

func ciText(s Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.CILevel == 0 {
		return "(n too small)"
	}
	return num(s.Lo) + " to " + num(s.Hi)
}

func phaseText(v VariantResult, name string) string {
	s, ok := v.Phases[name]
	if !ok || s.N == 0 {
		return "-"
	}
	return num(s.Median)
}

// diffText is the tail of a variant line: the difference from the
// baseline, then bytes and CPU.
func (res *Result) diffText(i int, v VariantResult) string {
	tail := fmt.Sprintf("%.0f\t%s", v.WireBytes, num(ms(v.CPU)))
	if i == 0 {
		return "baseline\t\t\t" + tail
	}
	d := v.VsBaseline
	if d == nil {
		return "-\t\t\t" + tail
	}
	return res.diffCells(*d) + "\t" + tail
}

// diffCells formats a Diff as three cells: ms with interval, RTTs, p.
func (res *Result) diffCells(d Diff) string {
	s := signed(d.MS)
	if d.CILevel > 0 {
		s += " [" + num(d.Lo) + ", " + num(d.Hi) + "]"
	}
	rtt := "-"
	if ms(res.RTT) >= minRTTForRounds {
		rtt = fmt.Sprintf("%+.2f", d.RTTs)
	}
	pv := res.p(d)
	p := fmt.Sprintf("%.3f", pv)
	if pv < 0.001 {
		p = "<0.001"
	}
	if !d.Significant {
		p = "~ " + p
	}
	return s + "\t" + rtt + "\t" + p
}

// writeEffects lists each pair of variants that differ in one dimension.
func (res *Result) writeEffects(w io.Writer) {
	if len(res.Effects) == 0 {
		return
	}
	fmt.Fprintln(w, "\neffects (variants that differ in one dimension; to minus from):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  dimension\tfrom\tto\tms\tRTTs\tp\tbytes")
	for _, e := range res.Effects {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%+.0f\n", e.Dim, res.Variants[e.From].Name, res.Variants[e.To].Name,
			res.diffCells(e.Diff), e.Diff.Bytes)
	}
	tw.Flush()
}

// writeFooter prints the RTT, how the run went, the findings and errors.
func (res *Result) writeFooter(w io.Writer) {
	fmt.Fprintln(w)
	if res.RTT > 0 {
		fmt.Fprintf(w, "RTT %s ms (median over all connections)", num(ms(res.RTT)))
		if ms(res.RTT) < minRTTForRounds {
			fmt.Fprint(w, ": too short to count round trips; the differences are computation, not network")
		}
		fmt.Fprintln(w)
	}
	holm := ""
	if res.Holm {
		holm = ", p-values Holm-adjusted per table"
	}
	if percent(1-res.Alpha) != percent(res.Level) {
		holm += ", intervals of the differences at " + percent(1-res.Alpha)
	}
	fmt.Fprintf(w, "%d rounds, variant order shuffled each round (seed %d), stopped: %s; \"~\" = not significant at alpha %g%s\n",
		res.Rounds, res.Seed, res.Stop, res.Alpha, holm)
	if res.Steal != nil {
		fmt.Fprintf(w, "steal: %s\n", res.Steal.Line())
	}
	for _, n := range res.Notes() {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if f := res.Findings(); len(f) > 0 {
		fmt.Fprintln(w, "\nsummary:")
		for _, s := range f {
			fmt.Fprintf(w, "  %s.\n", s)
		}
	}
	for _, v := range res.Variants {
		if v.Dropped != "" {
			fmt.Fprintf(w, "dropped %s: %s\n", v.Name, v.Dropped)
		}
		msgs := make([]string, 0, len(v.Errors))
		for m := range v.Errors {
			msgs = append(msgs, m)
		}
		slices.Sort(msgs)
		for _, m := range msgs {
			fmt.Fprintf(w, "errors %s: %d× %s\n", v.Name, v.Errors[m], strings.TrimSpace(m))
		}
	}
}

// Notes returns what a reader must know to trust the numbers, written
// from the result: too few runs for any difference to be significant,
// and responses of another size than the baseline's (another resource:
// a plain-HTTP URL that serves an error page or another site, not the
// file measured over HTTPS). The text report prints them after "note:",
// the JSON document carries them.
func (res *Result) Notes() []string {
	var out []string
	if n := res.minN(); n > 0 && stats.MinP(n, n) >= res.Alpha {
		runs := "runs"
		if n == 1 {
			runs = "run"
		}
		out = append(out, fmt.Sprintf("with %d %s per variant no difference can be significant at alpha %g (the smallest p-value is %.3f); use more runs (-n)",
			n, runs, res.Alpha, stats.MinP(n, n)))
	}
	if odd := res.otherBodies(); len(odd) > 0 {
		out = append(out, fmt.Sprintf("the responses differ in size from the baseline's (%s %.0f bytes of body): %s; are the URLs the same resource?",
			res.Variants[0].Name, res.Variants[0].BodyBytes, strings.Join(odd, ", ")))
	}
	return out
}

// otherBodies lists the measured variants whose median body size is more
// than 10% (and 16 bytes) away from the baseline's, as "name N bytes".
func (res *Result) otherBodies() []string {
	if len(res.Variants) == 0 || res.Variants[0].Total.N == 0 {
		return nil
	}
	ref := res.Variants[0].BodyBytes
	var out []string
	for _, v := range res.Variants[1:] {
		if d := math.Abs(v.BodyBytes - ref); v.Total.N > 0 && d > 16 && d > 0.1*ref {
			out = append(out, fmt.Sprintf("%s %.0f bytes", v.Name, v.BodyBytes))
		}
	}
	return out
}

// p is the p-value significance is judged by: Holm-adjusted with Holm on.
func (res *Result) p(d Diff) float64 {
	if res.Holm {
		return d.PHolm
	}
	return d.P
}

// minN is the smallest number of samples of a measured variant.
func (res *Result) minN() int {
	n := 0
	for _, v := range res.Variants {
		if v.Total.N > 0 && (n == 0 || v.Total.N < n) {
			n = v.Total.N
		}
	}
	return n
}
