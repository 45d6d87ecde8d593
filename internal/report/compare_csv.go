package report

// compare's CSV (compare --csv): a header line, then one line per variant,
// in the order of the text report (the baseline first). Times are in
// milliseconds; a variant that was not measured has n 0 and empty cells
// for what it lacks, as has the baseline for the columns that compare it
// with itself. Text cells are escaped for spreadsheets (see csvText).
//
//	variant                      the variant's name, as the text report shows it
//	scheme, proto, tls, handshake, conn   its key: http or https; http1.1,
//	                             http2 or http3; 1.2 or 1.3; full, resumed or
//	                             0-rtt; fresh or reuse (empty where it has none)
//	n                            measured requests
//	median_ms, ci_lo_ms, ci_hi_ms, ci_level   the median total time and its
//	                             confidence interval (empty when n is too small)
//	min_ms, p90_ms, max_ms       of the total time
//	connect_ms, tls_ms, wait_ms  median phases that happened
//	diff_ms, diff_ci_lo_ms, diff_ci_hi_ms   the shift against the baseline
//	                             (Hodges-Lehmann) and its interval at 1 - alpha
//	diff_rtts                    the shift in round trips (empty when the RTT is
//	                             too short to count them)
//	p, significant               the p-value significance is judged by (Holm-
//	                             adjusted with --holm) and the verdict at alpha
//	wire_bytes, handshake_bytes, body_bytes, cpu_ms   medians per request
//	errors                       failed requests
//	dropped                      why the variant stopped being measured, if it did

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/transport"
)

var compareCSVHeader = []string{"variant", "scheme", "proto", "tls", "handshake", "conn", "n", "median_ms", "ci_lo_ms",
	"ci_hi_ms", "ci_level", "min_ms", "p90_ms", "max_ms", "connect_ms", "tls_ms", "wait_ms", "diff_ms", "diff_ci_lo_ms",
	"diff_ci_hi_ms", "diff_rtts", "p", "significant", "wire_bytes", "handshake_bytes", "body_bytes", "cpu_ms", "errors",
	"dropped"}

// CompareCSV writes a comparison as CSV: the header line, then one line
// per variant, in the columns listed at the top of this file.
func CompareCSV(w io.Writer, res *compare.Result) error {
	cw := csv.NewWriter(w)
	rows := [][]string{compareCSVHeader}
	for _, v := range res.Variants {
		rows = append(rows, compareCSVRow(res, v))
	}
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("writing compare csv: %w", err)
	}
	return nil
}

func compareCSVRow(res *compare.Result, v compare.VariantResult) []string {
	k, s := v.Key, v.Total
	row := []string{csvText(v.Name), k.Scheme, k.Proto.Token(), k.TLS, k.Handshake, k.Conn, strconv.Itoa(s.N)}
	if s.N == 0 {
		row = append(row, make([]string, 20)...)
		return append(row, strconv.Itoa(errorCount(v)), csvText(v.Dropped))
	}
	ci := []string{"", "", ""}
	if s.CILevel > 0 {
		ci = []string{csvMS(s.Lo), csvMS(s.Hi), csvFloat(s.CILevel)}
	}
	row = append(row, csvMS(s.Median))
	row = append(row, ci...)
	row = append(row, csvMS(s.Min), csvMS(s.P90), csvMS(s.Max))
	for _, phase := range []string{"connect", "tls", "wait"} {
		cell := ""
		if p, ok := v.Phases[phase]; ok && p.N > 0 {
			cell = csvMS(p.Median)
		}
		row = append(row, cell)
	}
	row = append(row, compareDiffCSV(res, v.VsBaseline)...)
	row = append(row, csvBytes(v.WireBytes), csvBytes(v.HandshakeBytes), csvBytes(v.BodyBytes), csvMS(exactMS(v.CPU)))
	return append(row, strconv.Itoa(errorCount(v)), csvText(v.Dropped))
}

// compareDiffCSV is the six cells of the difference against the
// baseline; empty for the baseline itself and when a side has no sample.
func compareDiffCSV(res *compare.Result, d *compare.Diff) []string {
	if d == nil {
		return make([]string, 6)
	}
	cells := []string{csvMS(d.MS), "", "", "", strconv.FormatFloat(res.PValue(*d), 'g', 4, 64), strconv.FormatBool(d.Significant)}
	if d.CILevel > 0 {
		cells[1], cells[2] = csvMS(d.Lo), csvMS(d.Hi)
	}
	if res.RTT >= transport.MinRTTForRounds {
		cells[3] = strconv.FormatFloat(d.RTTs, 'f', 2, 64)
	}
	return cells
}

// errorCount is how many of a variant's requests failed.
func errorCount(v compare.VariantResult) int {
	n := 0
	for _, c := range v.Errors {
		n += c
	}
	return n
}

// csvMS writes milliseconds to the microsecond.
func csvMS(ms float64) string { return strconv.FormatFloat(ms, 'f', 3, 64) }

// csvBytes writes a median of byte counts: whole, or ending in .5.
func csvBytes(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }
