package report

// audit, experiment and demo in the HTML report.

import (
	"fmt"
	"math"
	"strings"

	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// moreSections draws the kinds htmlSection does not.
func moreSections(in HTMLInput) (section, error) {
	var s section
	switch r := in.Doc.Result.(type) {
	case *tlsscan.Report:
		s = auditSection(r)
	case *page.Result:
		s = pageSection(r)
	case *demo.Result:
		s = demoSection(r)
	case *page.SurveyResult:
		s = surveySection(r)
	default:
		return s, fmt.Errorf("writing the html report: no drawing for a %s result", in.Doc.Kind)
	}
	s.Title = in.Doc.Kind + ": " + in.Label
	s.Meta = append(s.Meta, docMeta(in.Doc))
	return s, nil
}

// auditSection draws the findings by severity and lists each with its
// cost and fix.
func auditSection(r *tlsscan.Report) section {
	s := section{Meta: []string{fmt.Sprintf("%s (%s), RTT %s ms, %d connections", r.Target, r.Address, msOf(r.RTT), r.Connections)}}
	counts := map[tlsscan.Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	sevs := []tlsscan.Severity{tlsscan.High, tlsscan.Medium, tlsscan.Low, tlsscan.Info}
	maxN := 1
	for _, sv := range sevs {
		maxN = max(maxN, counts[sv])
	}
	h := plotTop + float64(len(sevs))*laneHeight + axisHeight
	c := chart{Title: "Findings by severity", Width: chartWidth, Height: h, Comment: "how many findings of each severity; the table lists each with its cost and fix"}
	ticks := niceTicks(float64(maxN), min(maxN, 5))
	xs := scale{lo: 0, hi: ticks[len(ticks)-1], from: plotLeft, to: plotRight}
	c.xAxis(xs, ticks, h-axisHeight, plotTop, "findings", tick)
	c.Table = table{Caption: "findings", Head: []string{"severity", "finding", "cost ms", "cost RTT", "cost bytes", "per", "fix", "evidence"}}
	for i, sv := range sevs {
		y := plotTop + float64(i)*laneHeight
		c.Labels = append(c.Labels, svgText{X: plotLeft - 6, Y: y + laneHeight/2 + 4, Anchor: "end", Class: "lane", Text: sv.String()})
		n := counts[sv]
		if n == 0 {
			continue
		}
		c.Rects = append(c.Rects, rect{X: plotLeft, Y: y + 3, W: max(xs.at(float64(n))-plotLeft, 1), H: laneHeight - 6,
			Class: "sev-" + sv.String(), Tip: fmt.Sprintf("%s: %d", sv, n)})
	}
	for _, sv := range sevs {
		for _, f := range r.Findings {
			if f.Severity != sv {
				continue
			}
			per := f.Cost.Per
			if f.Cost.Fails != "" {
				per = strings.TrimSuffix("fails for "+f.Cost.Fails+"; "+per, "; ")
			}
			c.Table.Rows = append(c.Table.Rows, []string{sv.String(), f.Title, costMS(f.Cost), costNum(f.Cost.RoundTrips),
				costNum(float64(f.Cost.Bytes)), per, f.Fix, f.Evidence})
		}
	}
	s.Charts = append(s.Charts, c)
	if t := auditClientsTable(r); len(t.Rows) > 0 {
		s.Tables = append(s.Tables, t)
	}
	return s
}

func costMS(c tlsscan.Cost) string {
	if c.NotPriced != "" {
		return "not priced (loopback)"
	}
	if c.Time == 0 {
		return "-"
	}
	return msOf(c.Time)
}

func costNum(v float64) string {
	if v == 0 || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%g", v)
}

// experimentSection draws each metric's changes against the baseline.
func experimentSection(r *ExperimentJSON) section {
	s := section{Meta: []string{fmt.Sprintf("%s; %d complete blocks; \"~\" = not significant after Holm's correction at alpha %g",
		r.Command, r.Analysis.Blocks, r.Analysis.Alpha)}}
	for _, m := range r.Metrics {
		var lanes []interval
		t := table{Caption: m.Name + " (" + m.Unit + ")", Head: []string{"variant", "baseline", "variant median", "change", "CI low", "CI high", "p (Holm)"}}
		for _, v := range r.Analysis.Verdicts {
			if v.Metric != m.Name {
				continue
			}
			lanes = append(lanes, verdictLane(v, m.Unit))
			t.Rows = append(t.Rows, verdictRow(v, m.Unit))
		}
		if len(lanes) == 0 {
			continue
		}
		unit := m.Unit
		switch {
		case verdictsRatio(r.Analysis.Verdicts, m.Name):
			unit = "%"
		case unit == "%":
			unit = "pp" // a difference of two shares
		}
		c := intervalChart("Change in "+m.Name+" against the baseline", unit, "dot: the change; line: its interval; grey = not significant (~)", lanes, true)
		c.Legend = []legendItem{{Class: "sig", Text: "significant"}, {Class: "nosig", Text: "~ not significant"}}
		c.Table = t
		s.Charts = append(s.Charts, c)
		if sc, ok := experimentScatter(r, m.Name, m.Unit); ok {
			s.Charts = append(s.Charts, sc)
		}
	}
	if len(s.Charts) == 0 {
		s.Notes = append(s.Notes, "no comparison: no variant other than the baseline was measured in a complete block")
	}
	return s
}

// verdictsRatio tells whether a metric's changes are ratios (shown in
// percent) rather than differences in its unit.
func verdictsRatio(vs []experimentVerdictJSON, metric string) bool {
	for _, v := range vs {
		if v.Metric == metric {
			return v.Ratio
		}
	}
	return false
}

// verdictLane is a verdict's change, in percent for a ratio.
func verdictLane(v experimentVerdictJSON, unit string) interval {
	k := 1.0
	if v.Ratio {
		k = 100
	}
	l := interval{Name: v.Variant, V: k * v.Shift, Lo: math.NaN(), Hi: math.NaN(), Class: "nosig"}
	if v.Significant {
		l.Class = "sig"
	}
	if v.CILo != nil && v.CIHi != nil {
		l.Lo, l.Hi = k**v.CILo, k**v.CIHi
	}
	l.Tip = fmt.Sprintf("%s %s: %s", v.Variant, v.Metric, verdictChange(v, unit))
	return l
}

// verdictChange is a verdict's change as the table shows it: a ratio in
// percent, a difference in the metric's unit (percentage points for a
// share).
func verdictChange(v experimentVerdictJSON, unit string) string {
	if !v.Significant {
		return "~ (" + signedChange(v.Shift, v.Ratio, unit) + ")"
	}
	return signedChange(v.Shift, v.Ratio, unit)
}

func verdictRow(v experimentVerdictJSON, unit string) []string {
	lo, hi := "-", "-"
	if v.CILo != nil && v.CIHi != nil {
		lo, hi = signedChange(*v.CILo, v.Ratio, unit), signedChange(*v.CIHi, v.Ratio, unit)
	}
	return []string{v.Variant, quantity(v.Baseline, unit), quantity(v.Value, unit), verdictChange(v, unit), lo, hi, pValue(v.PHolm)}
}

// demoSection draws the demo: its comparison, its load runs, its page
// loads and its audit.
func demoSection(r *demo.Result) section {
	s := compareSection(r.Comparison, nil)
	s.Meta = append([]string{r.Server}, s.Meta...)
	if len(r.Load) > 0 {
		t := table{Caption: "load runs", Head: []string{"connections", "requests", "errors", "requests/s", "handshakes/s", "p50 ms", "p99 ms"}}
		for _, l := range r.Load {
			t.Rows = append(t.Rows, []string{l.Name, fmt.Sprint(l.Requests), fmt.Sprint(l.Errors), fmt.Sprintf("%.0f", l.RequestRate),
				fmt.Sprintf("%.0f", l.HandshakeRate), msOf(l.P50), msOf(l.P99)})
		}
		s.Tables = append(s.Tables, t)
	}
	if r.Page != nil {
		s.Charts = append(s.Charts, pageSection(r.Page).Charts...)
	} else if r.PageErr != "" {
		s.Notes = append(s.Notes, "page load failed: "+r.PageErr)
	}
	if r.Audit != nil {
		a := auditSection(r.Audit)
		s.Charts = append(s.Charts, a.Charts...)
	} else if r.AuditErr != "" {
		s.Notes = append(s.Notes, "audit failed: "+r.AuditErr)
	}
	return s
}
