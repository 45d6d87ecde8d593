package report

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestBenchCSVGolden writes the open-model sample run and a closed-model
// run of it, whose service columns are empty, and compares with
// testdata/bench.csv.
func TestBenchCSVGolden(t *testing.T) {
	closed := sampleBench()
	closed.Config.Rate, closed.Config.Mode = 0, transport.KeepAlive
	closed.Latency.Service.Reset()
	closed.CPU.ServerMeasured = false
	var b strings.Builder
	if err := BenchCSV(&b, sampleBench(), closed); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "bench.csv", []byte(b.String()))
	checkCSVShape(t, b.String(), 3)
}

// TestCompareCSVGolden writes the golden comparison (one variant not
// measured) and compares with testdata/compare.csv.
func TestCompareCSVGolden(t *testing.T) {
	var b strings.Builder
	if err := CompareCSV(&b, goldenComparison(t)); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "compare.csv", []byte(b.String()))
	checkCSVShape(t, b.String(), 6)
}

// checkCSVShape reads the CSV back: lines rows, each as wide as the header.
func checkCSVShape(t *testing.T, text string, lines int) {
	t.Helper()
	records, err := csv.NewReader(strings.NewReader(text)).ReadAll() // fails on a line of another width
	if err != nil || len(records) != lines {
		t.Errorf("reading the CSV back: %d records, %v; want %d of one width", len(records), err, lines)
	}
}

// TestCSVText: a cell a spreadsheet would take for a formula starts with
// an apostrophe, a control character is written as its escape (a tab or
// a line break no longer starts the cell); other text is left as it is.
func TestCSVText(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")", "+1": "'+1", "-2+3": "'-2+3", "@SUM(A1)": "'@SUM(A1)",
		"\tx": "\\tx", "\r\n=1": "\\r\\n=1", "\x1b]0;title\x07": "\\x1b]0;title\\x07", "＝1+1": "'＝1+1", "https://127.0.0.1/": "https://127.0.0.1/", "": "", "dial tcp: refused": "dial tcp: refused",
	} {
		if got := csvText(in); got != want {
			t.Errorf("csvText(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestExperimentCSV writes the fixed experiment's verdicts as CSV.
func TestExperimentCSV(t *testing.T) {
	var b strings.Builder
	if err := WriteCSV(&b, "experiment", ExperimentResultJSON(experimentFixture())); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "experiment.csv", []byte(b.String()))
	checkCSVShape(t, b.String(), 1+2)
}
