package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/httpslab/httpslab/internal/experiment"
	"github.com/httpslab/httpslab/internal/nginxconf"
	"github.com/httpslab/httpslab/internal/stats"
)

// Experiment writes the human report of an experiment: the variants and
// whether each was live, then one line per variant and metric.
//
// Verdict columns: the variant (named by its value), the metric, the
// baseline's and the variant's medians over the complete blocks, the
// change (the paired Hodges-Lehmann shift of the per-block ratios, or of
// the differences in the metric's unit where a value is 0),
// its 95% interval, the Holm-corrected p-value and the coefficient of
// variation of the variant's values across blocks. A change that is not
// significant shows "~" in place of the change; its interval still shows
// how large it could be.
func Experiment(w io.Writer, r *experiment.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "experiment: %s\n", termSafe(r.Command))
	fmt.Fprintf(&b, "%d of %d blocks, variants in shuffled order (seed %d), a fresh %s for each run\n\n",
		len(r.Order), r.Blocks, r.Seed, serverNoun(r))
	experimentVariants(&b, r)
	if err := experimentVerdicts(&b, r); err != nil {
		return err
	}
	experimentDesign(&b, r)
	experimentUnjudged(&b, r)
	experimentProblems(&b, r)
	experimentNoise(&b, r)
	experimentEnv(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// longVariantName is the longest variant name the verdict table repeats
// on each of its rows; beyond it (a cipher list, every directive of
// --all-at-once) the rows name each variant by its number instead.
const longVariantName = 32

// variantLabels returns what the verdict table calls each variant: its
// name, or "#i" (its row in the variant table) when any name is long.
func variantLabels(r *experiment.Result) ([]string, bool) {
	labels := make([]string, len(r.Variants))
	long := false
	for i, v := range r.Variants {
		labels[i] = termSafe(v.Name)
		long = long || utf8.RuneCountInString(labels[i]) > longVariantName
	}
	if long {
		for i := range labels {
			labels[i] = fmt.Sprintf("#%d", i)
		}
	}
	return labels, long
}

func experimentVariants(b *strings.Builder, r *experiment.Result) {
	labels, numbered := variantLabels(r)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	if numbered {
		// A long name would push the evidence far to the right: each
		// variant takes two lines, its name and below it the evidence.
		fmt.Fprintln(tw, "#\tstatus\tvariant, evidence")
	} else {
		fmt.Fprintln(tw, "variant\tstatus\tevidence")
	}
	for i, v := range r.Variants {
		evidence := v.Evidence
		if v.Status == experiment.Failed || v.Status == experiment.Obsolete {
			evidence, _, _ = strings.Cut(evidence, "\n") // the first line; the rest is below
		}
		if numbered {
			fmt.Fprintf(tw, "%s\t%s\t%s\n\t\t%s\n", labels[i], v.Status, termSafe(v.Name), termSafe(evidence))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termSafe(v.Name), v.Status, termSafe(evidence))
	}
	tw.Flush()
	// Say where the template did not have a varied directive: it was
	// added to the block it belongs in, which a server block's own
	// setting overrides.
	for _, block := range []string{"main", "events", "http"} {
		if names := addedTo(r, block); len(names) > 0 {
			fmt.Fprintf(b, "not in the template, added to its %s block: %s\n", blockName(block), termSafe(strings.Join(names, ", ")))
		}
	}
	b.WriteString("\n")
}

// addedTo returns the varied directives the template does not have that
// a variant added to the given block (nginxconf.Context), in the order
// of the settings.
func addedTo(r *experiment.Result, block string) []string {
	var names []string
	for _, v := range r.Variants {
		if len(v.Edits) != len(v.Settings) {
			continue
		}
		for i, n := range v.Edits {
			name := v.Settings[i].Directive
			if n == 0 && nginxconf.Context(name) == block && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

func blockName(context string) string {
	if context == "main" {
		return "main (top level)"
	}
	return context
}

func experimentVerdicts(b *strings.Builder, r *experiment.Result) error {
	a := r.Analysis
	if len(a.Verdicts) == 0 {
		b.WriteString("no comparison: no variant other than the baseline was measured in a complete block\n")
		return nil
	}
	labels, numbered := variantLabels(r)
	if numbered {
		fmt.Fprintf(b, "variants by their # above (a name is longer than %d characters)\n", longVariantName)
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "variant\tmetric\tbaseline\tvariant\tchange\t%.0f%% CI\tp (Holm)\tCV\n", experiment.Level*100)
	units := map[string]string{}
	for _, m := range r.Metrics {
		units[m.Name] = m.Unit
	}
	for _, v := range a.Verdicts {
		unit := units[v.Metric]
		change := "~"
		if v.Significant {
			change = signedChange(v.Shift, v.Ratio, unit)
		}
		ci := "(too few blocks)"
		if v.CI.Valid() {
			ci = signedChange(v.CI.Lo, v.Ratio, unit) + " to " + signedChange(v.CI.Hi, v.Ratio, unit)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", labels[v.Variant], v.Metric,
			quantity(v.Baseline, unit), quantity(v.Value, unit), change, ci, pValue(v.PHolm), percent(v.CV))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the experiment: %w", err)
	}
	return nil
}

// quantity formats a metric's value with its unit.
func quantity(x float64, unit string) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case unit == "/s" && math.Abs(x) < 100:
		// A slow rate (downloads of megabytes, 6/s) rounded to a whole
		// number hides a change of 10%: three significant digits.
		return strconv.FormatFloat(x, 'g', 3, 64) + "/s"
	case unit == "/s":
		return groupDigits(int64(math.Round(x))) + "/s"
	case unit == "B":
		return groupDigits(int64(math.Round(x))) + " B"
	case unit == "%":
		return fmt.Sprintf("%.1f%%", x)
	}
	return fmt.Sprintf("%.3f %s", x, unit)
}

// signedChange is a change as a ratio ("+12.3%") or, where it was
// estimated as a difference, in the metric's unit ("+0.12 ms").
func signedChange(shift float64, ratio bool, unit string) string {
	if pct := 100 * shift; ratio && pct != 0 && math.Abs(pct) < 0.95 {
		// Below one percent a change keeps two significant digits: a
		// change of bytes on the wire by a few frame headers is real and
		// consistent, and "-0.0%" would say nothing of it.
		digits := min(1-int(math.Floor(math.Log10(math.Abs(pct)))), 8)
		return fmt.Sprintf("%+.*f%%", digits, pct)
	}
	if ratio {
		return fmt.Sprintf("%+.1f%%", 100*shift)
	}
	if unit == "%" {
		// A difference of two shares is in percentage points, told
		// apart from the relative changes the column shows elsewhere.
		return fmt.Sprintf("%+.1f pp", shift)
	}
	return fmt.Sprintf("%+.3g %s", shift, unit)
}

func pValue(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", p)
}

func percent(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// experimentDesign says what the blocks could detect.
func experimentDesign(b *strings.Builder, r *experiment.Result) {
	a := r.Analysis
	if a.Blocks == 0 {
		return
	}
	fmt.Fprintf(b, "\n~ not significant at %.2g after Holm's correction over %s (the intervals are each "+
		"comparison's own); %s, smallest p one comparison can reach %.2g (%.2g after the correction)\n",
		a.Alpha, plural(a.Family, "comparison"), plural(a.Blocks, "complete block"), a.MinP, math.Min(1, a.MinP*float64(max(a.Family, 1))))
	experimentOutOfReach(b, r)
	if inc := a.Inconclusive(); len(inc) > 0 {
		fmt.Fprintf(b, "warning: too noisy to rule out a change of ±%.0f%% in %d of the ~ verdicts (more blocks or longer runs narrow the intervals):",
			100*a.Effect, len(inc))
		for i, v := range inc {
			if i == 4 {
				fmt.Fprintf(b, " and %d more", len(inc)-i)
				break
			}
			fmt.Fprintf(b, " %s %s;", termSafe(r.Variants[v.Variant].Name), v.Metric)
		}
		b.WriteString("\n")
	}
	experimentCorrected(b, r)
	if !a.Reachable {
		fmt.Fprintf(b, "warning: with %d blocks no change can be significant (%d × %.2g ≥ %.2g); it takes %d blocks (-n %d)\n",
			a.Blocks, a.Family, a.MinP, a.Alpha, a.BlocksNeeded, a.BlocksNeeded)
	}
}

// experimentOutOfReach names the metrics of the comparisons left out of
// Holm's family because their blocks are tied.
func experimentOutOfReach(b *strings.Builder, r *experiment.Result) {
	var metrics []string
	count := map[string]int{}
	n := 0
	for _, v := range r.Analysis.Verdicts {
		if v.OutOfReach {
			if count[v.Metric] == 0 {
				metrics = append(metrics, v.Metric)
			}
			count[v.Metric]++
			n++
		}
	}
	if n == 0 {
		return
	}
	var parts []string
	for _, m := range metrics {
		parts = append(parts, fmt.Sprintf("%s (%d)", m, count[m]))
	}
	fmt.Fprintf(b, "outside the correction (p uncorrected), as their values differ in too few blocks to reach %.2g at all: %s: %s\n",
		r.Analysis.Alpha, plural(n, "comparison"), strings.Join(parts, ", "))
}

// experimentCorrected names the ~ verdicts whose own interval leaves out
// no change: significant alone, not after Holm's correction for the
// family. A reader who sees "~" next to "+0.8% to +3.8%" learns why, and
// that this one comparison, had it been the only one, would have counted.
func experimentCorrected(b *strings.Builder, r *experiment.Result) {
	var names []string
	for _, v := range r.Analysis.Verdicts {
		if !v.Significant && !v.OutOfReach && v.CI.Valid() && (v.CI.Lo > 0 || v.CI.Hi < 0) {
			names = append(names, fmt.Sprintf(" %s %s (p %s alone, %s after);", termSafe(r.Variants[v.Variant].Name),
				v.Metric, pValue(v.P), pValue(v.PHolm)))
		}
	}
	if len(names) > 0 {
		fmt.Fprintf(b, "note: each of these ~ leaves out no change in its own interval, but is not significant after Holm's correction over %s:%s\n",
			plural(r.Analysis.Family, "comparison"), strings.Join(names, ""))
	}
}

// experimentUnjudged names the metrics a measured variant has and the
// baseline has not, or the other way round, in every complete block: a
// compare row that fails on one side (resumption where tickets are off)
// has no verdict, and the line says why, in that side's words.
func experimentUnjudged(b *strings.Builder, r *experiment.Result) {
	blocks := r.CompleteBlocks()
	if r.Analysis.Blocks == 0 || len(r.Variants) == 0 {
		return
	}
	judged := map[string]bool{}
	for _, v := range r.Analysis.Verdicts {
		judged[fmt.Sprint(v.Variant, v.Metric)] = true
	}
	// has says whether v has m in any complete block, and the first error
	// of its samples there.
	has := func(v experiment.VariantResult, m string) (bool, string) {
		msg := ""
		for _, blk := range blocks {
			s := v.Samples[blk]
			if s == nil {
				continue
			}
			if _, ok := s.Values[m]; ok {
				return true, ""
			}
			msg = cmp.Or(msg, s.Error)
		}
		return false, msg
	}
	for vi, v := range r.Variants {
		if v.Baseline || !v.Status.Measured() {
			continue
		}
		for _, m := range r.Metrics {
			baseHas, baseErr := has(r.Variants[0], m.Name)
			varHas, varErr := has(v, m.Name)
			if judged[fmt.Sprint(vi, m.Name)] || baseHas == varHas {
				continue
			}
			side, msg := "the baseline", baseErr
			if baseHas {
				side, msg = "the variant", varErr
			}
			fmt.Fprintf(b, "no verdict on %s %s: %s has no value in any complete block", termSafe(v.Name), m.Name, side)
			if msg != "" {
				fmt.Fprintf(b, " (%s)", termSafe(msg))
			}
			b.WriteString("\n")
		}
	}
}

// experimentProblems lists nginx's messages of more than one line for
// variants that failed or are obsolete, errors of single runs and why the experiment stopped.
func experimentProblems(b *strings.Builder, r *experiment.Result) {
	for _, v := range r.Variants {
		if (v.Status == experiment.Failed || v.Status == experiment.Obsolete) && strings.Contains(v.Evidence, "\n") {
			// The table showed the first line; nginx's whole message is here.
			fmt.Fprintf(b, "\n%s %s:\n", termSafe(v.Name), v.Status)
			for line := range strings.Lines(v.Evidence) {
				fmt.Fprintf(b, "  %s\n", termSafe(strings.TrimRight(line, "\n")))
			}
		}
		for blk, e := range v.BlockErrors {
			if e != "" {
				fmt.Fprintf(b, "%s, block %d: %s\n", termSafe(v.Name), blk+1, termSafe(e))
			}
		}
		if len(v.ErrorLog) > 0 && v.Status.Measured() {
			fmt.Fprintf(b, "%s: %s ends with: %s\n", termSafe(v.Name), serverLog(r), termSafe(v.ErrorLog[len(v.ErrorLog)-1]))
		}
	}
	switch r.Stopped {
	case "interrupted":
		fmt.Fprintf(b, "\ninterrupted after %d of %d blocks: the verdicts use the complete blocks only\n", len(r.Order), r.Blocks)
	case "max-time":
		fmt.Fprintf(b, "\n--max-time reached after %d of %d blocks\n", len(r.Order), r.Blocks)
	}
}

// experimentNoise says how busy the machine was during the runs.
func experimentNoise(b *strings.Builder, r *experiment.Result) {
	var others []float64
	steal := 0.0
	for _, v := range r.Variants {
		for _, s := range v.Samples {
			if s != nil && s.Noise != nil {
				others = append(others, s.Noise.OtherCores)
				steal = max(steal, s.Noise.StealShare)
			}
		}
	}
	if len(others) == 0 {
		return
	}
	fmt.Fprintf(b, "\nother processes kept %.2f of %d cores busy during a run (median; at most %.2f); the hypervisor took at most %.1f%%\n",
		stats.Median(others), r.Env.CPUs, slices.Max(others), 100*steal)
}

func experimentEnv(b *strings.Builder, r *experiment.Result) {
	e := r.Env
	server, _, _ := strings.Cut(e.NginxVersion, "\n")
	server += ", " + e.OpenSSL
	if e.Server != "" {
		server = "server: " + e.Server
	}
	fmt.Fprintf(b, "\n%s; kernel %s; %d × %s; TCP metrics %s", termSafe(server),
		termSafe(e.Kernel), e.CPUs, termSafe(e.CPUModel), termSafe(e.TCPMetrics))
	if e.Pinning != "" && e.Pinning != "none" {
		fmt.Fprintf(b, "; %s", termSafe(e.Pinning))
	}
	if e.Link != "" {
		fmt.Fprintf(b, "; servers behind an emulated link (%s)", termSafe(e.Link))
	}
	b.WriteString("\n")
}

// serverNoun names the server of an experiment: nginx, or a server from a
// command line.
func serverNoun(r *experiment.Result) string {
	if r.Env.Server != "" {
		return "server"
	}
	return "nginx"
}

// serverLog names where the lines of ErrorLog come from.
func serverLog(r *experiment.Result) string {
	if r.Env.Server != "" {
		return "the server's output"
	}
	return "nginx's error log"
}
