//go:build !race

// These tests run every command that writes --json, the demo among them,
// whose HTTP/3 0-RTT requests meet a race inside quic-go's own stream map
// (quic-go issue #4303; scripts/test.sh says why 0-RTT tests run only
// without -race); they are also the package's heaviest, so they run once,
// in the pass without the race detector.

package report_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/report"
)

// TestHTMLEveryKind renders a real result of every kind and checks that
// each has its charts, each chart its table, and nothing loads.
func TestHTMLEveryKind(t *testing.T) {
	srv, ca := labTarget(t)
	docs := map[string][]byte{
		"probe":   runJSON(t, "probe", "--json", "--cacert", ca, "-L", srv.HTTPSURL+"/redirect/1"),
		"bench":   runJSON(t, "bench", "--json", "--cacert", ca, "-n", "200", "-c", "2", srv.HTTPSURL+"/"),
		"audit":   runJSON(t, "audit", "--json", "--cacert", ca, "--attempts", "2", srv.HTTPSURL+"/"),
		"compare": runJSON(t, "compare", "--json", "--cacert", ca, "--http-url", srv.HTTPURL+"/", "--vary", "scheme", "-n", "3", srv.HTTPSURL+"/"),
		"page":    runJSON(t, "page", "--json", "--cacert", ca, "-n", "2", "--protocols", "h1,h2", srv.HTTPSURL+"/page/styled"),
		"demo":    runJSON(t, "demo", "--json", "--runs", "2", "--bench-time", "200ms"),
	}
	docs["experiment"] = experimentOutput(t)
	docs["page-survey"] = runJSON(t, "page", "--json", "--cacert", ca, "-n", "2", "--protocols", "h1,h2", "--urls", surveyURLs(t, srv.HTTPSURL))
	want := map[string][]string{
		"probe":       {"Waterfall", "run 1 hop 2 (reused)", `class="ph-tls"`},
		"bench":       {"Latency percentile spectrum by phase", "p99.99"},
		"audit":       {"Findings by severity", "sev-"},
		"compare":     {"Median total time per variant", "Difference against the baseline"},
		"page":        {"Median page load per protocol", "Waterfall of the median h1 load", "Waterfall of the median h2 load"},
		"demo":        {"Median total time per variant", "Findings by severity", "load runs", "Median page load per protocol"},
		"experiment":  {"Change in", "against the baseline"},
		"page-survey": {"Each difference across pages", "3 pages over h1, h2", "/page/styled"},
	}
	for kind, doc := range docs {
		page := renderHTML(t, []string{kind + ".json"}, readDoc(t, doc))
		checkOffline(t, kind, page)
		for _, w := range want[kind] {
			if !strings.Contains(page, w) {
				t.Errorf("%s report: no %q", kind, w)
			}
		}
		if f, tb := strings.Count(page, "<figure "), strings.Count(page, "<table>"); f == 0 || tb < f {
			t.Errorf("%s report: %d charts, %d tables; want every chart with its table", kind, f, tb)
		}
		if kind != "bench" && kind != "page-survey" { // bench's CSV is written from the run, not its document; a survey has none
			var b bytes.Buffer
			d := readDoc(t, doc)
			if err := report.WriteCSV(&b, kind, d.Result); err != nil {
				t.Errorf("%s --csv: %v", kind, err)
			}
			if rows, err := csv.NewReader(&b).ReadAll(); err != nil || len(rows) < 2 {
				t.Errorf("%s --csv: %d rows, %v; want a header and rows of its width", kind, len(rows), err)
			}
		}
	}
}
