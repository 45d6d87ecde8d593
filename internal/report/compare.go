package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/transport"
)

// CompareText writes compare's report: where it measured, the plain-HTTP
// URL when one was measured, and the report of Compare.
func CompareText(w io.Writer, res *compare.Result, where, httpURL string) error {
	fmt.Fprintf(w, "compare %s\n", where)
	if httpURL != "" {
		fmt.Fprintf(w, "plain HTTP from %s\n", httpURL)
	}
	fmt.Fprintln(w)
	return Compare(w, res)
}

// Compare writes the human report of a comparison: one line per variant,
// the effects of each dimension, the findings, and the errors.
//
// Variant columns: n (measured requests), median total ms with its
// confidence interval, the median connect, tls and wait phases in ms,
// the shift against the baseline in ms with its interval, the same in
// round trips, the Mann-Whitney p-value ("~" marks a difference that is
// not significant), the median bytes on the wire and process CPU time
// per request.
func Compare(w io.Writer, res *compare.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "variant\tn\tmedian ms\t%.0f%% CI\tconnect\ttls\twait\tvs baseline ms\tRTTs\tp\tbytes\tcpu ms\t\n", res.Level*100)
	for i, v := range res.Variants {
		if v.Total.N == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\t-\t-\t-\tnot measured\t\t\t-\t-\t\n", v.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", v.Name, v.Total.N, compare.FormatMS(v.Total.Median), compareCI(v.Total),
			comparePhase(v, "connect"), comparePhase(v, "tls"), comparePhase(v, "wait"), compareDiff(res, i, v))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the comparison: %w", err)
	}
	compareEffects(w, res)
	compareFooter(w, res)
	return nil
}

func compareCI(s compare.Summary) string {
	if s.N == 0 {
		return "-"
	}
	if s.CILevel == 0 {
		return "(n too small)"
	}
	return compare.FormatMS(s.Lo) + " to " + compare.FormatMS(s.Hi)
}

func comparePhase(v compare.VariantResult, name string) string {
	s, ok := v.Phases[name]
	if !ok || s.N == 0 {
		return "-"
	}
	return compare.FormatMS(s.Median)
}

// compareDiff is the tail of a variant line: the difference from the
// baseline, then bytes and CPU.
func compareDiff(res *compare.Result, i int, v compare.VariantResult) string {
	tail := fmt.Sprintf("%.0f\t%s", v.WireBytes, compare.FormatMS(exactMS(v.CPU)))
	if i == 0 {
		return "baseline\t\t\t" + tail
	}
	d := v.VsBaseline
	if d == nil {
		return "-\t\t\t" + tail
	}
	return compareDiffCells(res, *d) + "\t" + tail
}

// compareDiffCells formats a Diff as three cells: ms with interval, RTTs, p.
func compareDiffCells(res *compare.Result, d compare.Diff) string {
	s := compare.FormatSignedMS(d.MS)
	if d.CILevel > 0 {
		s += " [" + compare.FormatMS(d.Lo) + ", " + compare.FormatMS(d.Hi) + "]"
	}
	rtt := "-"
	if res.RTT >= transport.MinRTTForRounds {
		rtt = fmt.Sprintf("%+.2f", d.RTTs)
	}
	pv := res.PValue(d)
	p := fmt.Sprintf("%.3f", pv)
	if pv < 0.001 {
		p = "<0.001"
	}
	if !d.Significant {
		p = "~ " + p
	}
	return s + "\t" + rtt + "\t" + p
}

// compareEffects lists each pair of variants that differ in one dimension.
func compareEffects(w io.Writer, res *compare.Result) {
	if len(res.Effects) == 0 {
		return
	}
	fmt.Fprintln(w, "\neffects (variants that differ in one dimension; to minus from):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  dimension\tfrom\tto\tms\tRTTs\tp\tbytes")
	for _, e := range res.Effects {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%+.0f\n", e.Dim, res.Variants[e.From].Name, res.Variants[e.To].Name,
			compareDiffCells(res, e.Diff), e.Diff.Bytes)
	}
	tw.Flush()
}

// compareFooter prints the RTT, how the run went, the findings and errors.
func compareFooter(w io.Writer, res *compare.Result) {
	fmt.Fprintln(w)
	if res.RTT > 0 {
		fmt.Fprintf(w, "RTT %s ms (median over all connections)", compare.FormatMS(exactMS(res.RTT)))
		if res.RTT < transport.MinRTTForRounds {
			fmt.Fprint(w, ": too short to count round trips; the differences are computation, not network")
		}
		fmt.Fprintln(w)
	}
	holm := ""
	if res.Holm {
		holm = ", p-values Holm-adjusted per table"
	}
	if compare.FormatLevel(1-res.Alpha) != compare.FormatLevel(res.Level) {
		holm += ", intervals of the differences at " + compare.FormatLevel(1-res.Alpha)
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
			fmt.Fprintf(w, "errors %s: %d× %s\n", v.Name, v.Errors[m], Escape(strings.TrimSpace(m)))
		}
	}
}

// exactMS is d in milliseconds, unrounded, as compare's results keep them.
func exactMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
