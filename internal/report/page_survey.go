package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/page"
)

// PageSurvey writes the report of a survey of pages (page --urls): one
// line per page with the median load time of each protocol and each
// difference between neighbouring protocols (the shift with its interval,
// "~" when not significant), then per difference its spread across the
// pages: the quantiles of the per-page shifts in ms and in round trips,
// and the sentence they support ("for 90% of pages, TLS alone adds more
// than X ms").
func PageSurvey(w io.Writer, res *page.SurveyResult) error {
	fmt.Fprintf(w, "page survey: %d pages, %d loads per protocol each, protocols interleaved; cold loads\n\n", len(res.Pages), res.Rounds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"page"}
	for _, p := range res.Protocols {
		head = append(head, string(p)+" ms")
	}
	for i := 1; i < len(res.Protocols); i++ {
		head = append(head, string(res.Protocols[i-1])+" → "+string(res.Protocols[i]))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, p := range res.Pages {
		fmt.Fprintln(tw, strings.Join(surveyRow(p, res.Protocols), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the survey: %w", err)
	}
	for _, p := range res.Pages {
		if p.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", termSafe(p.URL), termSafe(p.Error))
		}
	}
	for _, s := range res.Effects {
		surveySpread(w, s)
	}
	return nil
}

// surveyRow is a page's line: its URL, its median per protocol, and its
// differences in the order of the protocols.
func surveyRow(p page.PageResult, protocols []page.Protocol) []string {
	row := []string{termSafe(p.URL)}
	for i := range protocols {
		cell := "-"
		if i < len(p.LoadTimes) && p.LoadTimes[i].N > 0 {
			cell = compare.FormatMS(p.LoadTimes[i].Median)
		}
		row = append(row, cell)
	}
	for i := 1; i < len(protocols); i++ {
		cell := "-"
		for _, d := range p.Differences {
			if d.From == protocols[i-1] && d.To == protocols[i] {
				cell = surveyDiff(d.Diff)
			}
		}
		row = append(row, cell)
	}
	return row
}

// surveyDiff is a shift with its interval, "~" first when not significant.
func surveyDiff(d compare.Diff) string {
	s := compare.FormatSignedMS(d.MS) + " ms"
	if d.CILevel > 0 {
		s += " [" + compare.FormatSignedMS(d.Lo) + ", " + compare.FormatSignedMS(d.Hi) + "]"
	}
	if !d.Significant {
		s = "~ " + s
	}
	return s
}

// surveySpread writes one difference's spread across the pages.
func surveySpread(w io.Writer, s page.Spread) {
	fmt.Fprintf(w, "\n%s (%s → %s) across %d pages, quantiles of the per-page shift:\n", s.Name, s.From, s.To, len(s.MS))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := "\t"
	for _, l := range page.SpreadLevels {
		line += fmt.Sprintf("%g%%\t", l*100)
	}
	fmt.Fprintln(tw, line)
	fmt.Fprintln(tw, quantileLine("ms", s.QuantMS))
	if s.QuantRTTs != nil {
		fmt.Fprintln(tw, quantileLine(fmt.Sprintf("RTT (%d pages)", s.RTTPages), s.QuantRTTs))
	}
	tw.Flush()
	fmt.Fprintf(w, "%s\n", spreadSentence(s))
}

func quantileLine(name string, qs []float64) string {
	line := name + "\t"
	for _, q := range qs {
		line += compare.FormatSignedMS(q) + "\t"
	}
	return line
}

// spreadSentence says what the spread supports, from its 10% and 90%
// quantiles: 90% of the pages are above the first and below the second.
func spreadSentence(s page.Spread) string {
	lo, hi := s.QuantMS[0], s.QuantMS[len(s.QuantMS)-1]
	rtt := func(i int) string {
		if s.QuantRTTs == nil {
			return ""
		}
		return fmt.Sprintf(" (%s RTT)", compare.FormatMS(math.Abs(s.QuantRTTs[i])))
	}
	switch {
	case lo >= 0:
		return fmt.Sprintf("for 90%% of pages, %s adds more than %s ms%s", s.Name, compare.FormatMS(lo), rtt(0))
	case hi <= 0:
		return fmt.Sprintf("for 90%% of pages, %s saves more than %s ms%s", s.Name, compare.FormatMS(-hi), rtt(len(s.QuantRTTs)-1))
	}
	return fmt.Sprintf("for 80%% of pages, %s is between %s and %s ms: it adds for some and saves for others", s.Name,
		compare.FormatSignedMS(lo), compare.FormatSignedMS(hi))
}
