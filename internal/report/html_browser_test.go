//go:build !race

// The browser test starts Chromium, a separate process the race detector
// cannot see into: under -race it would only add time, so it is built
// without -race only and scripts/test.sh runs it once, in its plain pass.

package report_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// chromium runs headless Chromium on a file with extra flags and returns
// its stdout and its log (stderr, with the pages' console messages).
func chromium(t *testing.T, file string, flags ...string) (string, string) {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not installed: the tests need it (scripts/test.sh installs it)")
	}
	profile := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0"}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+file)...)
	var out, log strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", flags, err, log.String())
	}
	return out.String(), log.String()
}

// consoleLine is a message a page logged, a CSP violation among them.
var consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)

// TestHTMLInBrowser opens reports of real results in Chromium and checks
// what it parsed: the policy, no reference to the network, no console
// message (Chromium logs every load the policy blocks there), and the
// tables with the numbers of the results.
func TestHTMLInBrowser(t *testing.T) {
	srv, ca := labTarget(t)
	bench := readDoc(t, runJSON(t, "bench", "--json", "--cacert", ca, "-n", "300", "-c", "2", srv.HTTPSURL+"/"))
	docs := []*report.Document{
		bench,
		readDoc(t, runJSON(t, "probe", "--json", "--cacert", ca, "-n", "2", srv.HTTPSURL+"/")),
		readDoc(t, runJSON(t, "compare", "--json", "--cacert", ca, "--vary", "tls", "-n", "3", srv.HTTPSURL+"/")),
		readDoc(t, runJSON(t, "audit", "--json", "--cacert", ca, "--attempts", "2", srv.HTTPSURL+"/")),
		readDoc(t, runJSON(t, "page", "--json", "--cacert", ca, "-n", "2", "--protocols", "h1,h2", srv.HTTPSURL+"/page/styled")),
	}
	file := filepath.Join(t.TempDir(), "report.html")
	page := renderHTML(t, []string{"bench", "probe", "compare", "audit", "page"}, docs...)
	if err := os.WriteFile(file, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	dom, log := chromium(t, file, "--dump-dom")
	checkOffline(t, "the DOM Chromium parsed", dom)
	if m := consoleLine.FindAllString(log, -1); len(m) > 0 {
		t.Errorf("Chromium's console reports %d messages:\n%s", len(m), strings.Join(m, "\n"))
	}
	checkBrowserNumbers(t, dom, docs)
	checkBlockedLoadLogged(t)
}

// checkBlockedLoadLogged makes sure the console check above can fail: a
// page under the same policy that asks for an image on loopback (a port
// nothing listens on) must have its blocked load in Chromium's log.
func checkBlockedLoadLogged(t *testing.T) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "load.html")
	doc := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">` +
		`</head><body><img src="http://127.0.0.1:9/x.png"></body></html>`
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, log := chromium(t, file, "--dump-dom"); !consoleLine.MatchString(log) || !strings.Contains(log, "Content Security Policy") {
		t.Errorf("a load the policy blocks left no console message in Chromium's log; the check of the reports cannot see one:\n%s", log)
	}
}

// checkBrowserNumbers checks cells of the parsed tables against the
// results: bench's spectrum against its HDR histogram, probe's phases,
// compare's medians and the count of audit's findings.
func checkBrowserNumbers(t *testing.T, dom string, docs []*report.Document) {
	t.Helper()
	b := docs[0].Result.(*report.BenchJSON)
	h, err := hdrhistogram.Decode([]byte(b.Latency["total"].HDR))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{50, 99, 99.99} {
		want := float64(h.ValueAtPercentile(p)) / 1000
		if got := tableMS(t, dom, "p"+strconv.FormatFloat(p, 'g', -1, 64)); !near(got, want) {
			t.Errorf("bench spectrum p%g = %g ms in the browser; want %g", p, got, want)
		}
	}
	pr := docs[1].Result.(*report.ProbeJSON)
	for _, ph := range pr.Runs[1].Hops[0].Phases {
		want := float64(ph.Duration) / 1e6
		row := regexp.MustCompile(`<th scope="row">run 2</th><td[^>]*>[^<]*</td><td[^>]*>` + ph.Name + `</td><td>[0-9.]+</td><td>([0-9.]+)</td>`).FindStringSubmatch(dom)
		if row == nil {
			t.Errorf("probe table: no %s row of run 2", ph.Name)
			continue
		}
		if got, _ := strconv.ParseFloat(row[1], 64); !near(got, want) {
			t.Errorf("probe run 2 %s = %g ms in the browser; want %g", ph.Name, got, want)
		}
	}
	cmp := docs[2].Result.(*report.CompareJSON).Result
	for _, v := range cmp.Variants {
		row := regexp.MustCompile(`<th scope="row">` + regexp.QuoteMeta(v.Name) + `</th><td>[0-9]+</td><td>([0-9.]+)</td>`).FindStringSubmatch(dom)
		if row == nil {
			t.Errorf("compare table: no row for %s", v.Name)
			continue
		}
		if got, _ := strconv.ParseFloat(row[1], 64); !near(got, v.Total.Median) {
			t.Errorf("compare %s median = %g ms in the browser; want %g", v.Name, got, v.Total.Median)
		}
	}
	findings := docs[3].Result.(*tlsscan.Report).Findings
	if got := len(regexp.MustCompile(`<th scope="row">(high|medium|low|info)</th>`).FindAllString(dom, -1)); got != len(findings) {
		t.Errorf("audit table: %d findings in the browser; want %d", got, len(findings))
	}
	conns := 0
	for _, p := range docs[4].Result.(*page.Result).Protocols {
		if p.Median != nil {
			conns += len(p.Median.Conns)
		}
	}
	if got := len(regexp.MustCompile(`class="lane">#[0-9]+ `).FindAllString(dom, -1)); got != conns {
		t.Errorf("page waterfalls: %d connection lanes in the browser; want %d, one per connection", got, conns)
	}
}

// near tells whether a number shown with three significant digits is x.
func near(shown, x float64) bool { return math.Abs(shown-x) <= math.Abs(x)*0.005+0.0005 }
