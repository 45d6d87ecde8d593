package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
)

// TestPageEmbedded loads a test page of the embedded server over two
// protocols and checks the report: a line per protocol, the difference,
// a waterfall lane per connection.
func TestPageEmbedded(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "page", "-n", "2", "--protocols", "h1,h2", "--path", "/page/images?n=12&size=500")
	if code != ExitOK {
		t.Fatalf("page = %d, stderr %q", code, stderr)
	}
	for _, want := range []string{"\n        h1  2", "\n        h2  2", "multiplexing  h1 → h2", "median load over h1", "median load over h2", " 13 req\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("page output lacks %q:\n%s", want, stdout)
		}
	}
	if lanes := strings.Count(stdout, " http/1.1 |"); lanes != 6 {
		t.Errorf("%d HTTP/1.1 lanes; want 6:\n%s", lanes, stdout)
	}
}

// TestPageJSON checks the versioned JSON of a single-protocol run.
func TestPageJSON(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "page", "-n", "2", "--http3", "--json", "--path", "/page/styled")
	if code != ExitOK {
		t.Fatalf("page --json = %d, stderr %q", code, stderr)
	}
	var doc struct {
		Schema string `json:"schema"`
		Result struct {
			Protocols []struct {
				Protocol string  `json:"protocol"`
				Requests float64 `json:"requests"`
				Median   struct {
					Requests []struct {
						Kind  string `json:"kind"`
						Proto string `json:"proto"`
					} `json:"requests"`
				} `json:"median_load"`
			} `json:"protocols"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("page --json: %v\n%s", err, stdout)
	}
	ps := doc.Result.Protocols
	if doc.Schema != "httpslab/page/v1" || len(ps) != 1 || ps[0].Protocol != "h3" || ps[0].Requests != 9 || len(ps[0].Median.Requests) != 9 {
		t.Fatalf("page --json: schema %q, protocols %+v; want httpslab/page/v1, h3 with 9 requests", doc.Schema, ps)
	}
	if r := ps[0].Median.Requests[0]; r.Kind != "document" || r.Proto != "HTTP/3.0" {
		t.Errorf("first request %+v; want the document over HTTP/3.0", r)
	}
}

// TestPageUsage checks that bad flags are usage errors with a reason.
func TestPageUsage(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"page", "-n", "0"}, "-n 0: want 1 to 1000"},
		{[]string{"page", "--warmup", "-1"}, "--warmup -1: want 0 to 100"},
		{[]string{"page", "--protocols", "h9"}, `unknown protocol "h9"`},
		{[]string{"page", "--protocols", "h1,h2", "--http2"}, "choose --protocols or one of"},
		{[]string{"page", "-d", "x"}, "--data: page sends GET requests"},
		{[]string{"page", "--max-streams", "0"}, "--max-streams 0: want 1 to 1000"},
		{[]string{"page", "--request-timeout", "soon"}, `--request-timeout "soon"`},
		{[]string{"page", "--response-cost", "3"}, `--response-cost "3": want a duration from 0 to 1s`},
		{[]string{"page", "--response-cost", "3ms", "--engine", "chromium"}, "httpslab: hint: the browser's own cost is measured, not modelled"},
		{[]string{"page", "--response-cost-per-mb", "2s"}, `--response-cost-per-mb "2s": want a duration from 0 to 1s`},
		{[]string{"page", "http://127.0.0.1:1/", "--protocols", "h2"}, "h2 needs the page's https:// URL"},
		{[]string{"page", "https://127.0.0.1:1/", "--rtt", "40ms"}, "a URL is loaded as it is"},
		{[]string{"page", "/page/images"}, `page /page/images: scheme "" is not http or https`},
		{[]string{"page", "https://127.0.0.1:8443/", "--protocols", "http,h1"}, "cannot tell the plain-HTTP port"},
		{[]string{"page", "https://127.0.0.1:0/"}, `port "0": want 1 to 65535`},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, context.Background(), tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v = %d, %q; want %d with %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}

// TestPageUnreachable checks that a page that cannot be loaded fails
// with the error and a hint, after the report of what was measured.
func TestPageUnreachable(t *testing.T) {
	code, _, stderr := run(t, context.Background(), "page", "-n", "1", "http://127.0.0.1:1/")
	if code != ExitFailure || !strings.Contains(stderr, "connection refused") || !strings.Contains(stderr, "httpslab: hint: nothing listens") {
		t.Errorf("page of a closed port = %d, %q; want 1, refused, a hint", code, stderr)
	}
}

// TestPageNoHTTP3 checks the hint for a server without HTTP/3: h2 is
// measured, h3 dropped with its reason.
func TestPageNoHTTP3(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, context.Background(), "page", "-n", "2", "--cacert", ca, "--protocols", "h2,h3", srv.HTTPSURL+"/page/images?n=5")
	if code != ExitFailure || !strings.Contains(stdout, "h3: not measured further") || !strings.Contains(stderr, "leave h3 out of --protocols") {
		t.Errorf("page h2,h3 without HTTP/3 = %d\nstdout %s\nstderr %s; want 1, h3 dropped, the hint", code, stdout, stderr)
	}
}

// TestServeWriteSite checks that serve --write-site writes the test
// pages for another server and exits.
func TestServeWriteSite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "site")
	code, stdout, stderr := run(t, context.Background(), "serve", "--write-site", dir)
	if code != ExitOK || stdout != dir+"\n" {
		t.Fatalf("serve --write-site = %d, %q, %q; want 0 and the directory", code, stdout, stderr)
	}
	for _, name := range []string{"page/images.html", "page/styled.html", "page/css/more.css", "page/res/script-359.js"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestPageHAR checks that --har writes the median load of each protocol
// as a HAR page with its requests, and that a file that cannot be
// written is a usage error before anything loads.
func TestPageHAR(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.har")
	code, _, stderr := run(t, context.Background(), "page", "-n", "1", "--protocols", "h1,h2", "--path", "/page/images?n=8&size=500", "--har", path)
	if code != ExitOK {
		t.Fatalf("page --har = %d, stderr %q", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Pages []struct {
				ID          string `json:"id"`
				PageTimings struct {
					OnLoad float64 `json:"onLoad"`
				} `json:"pageTimings"`
			} `json:"pages"`
			Entries []struct {
				Pageref    string `json:"pageref"`
				Connection string `json:"connection"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the HAR file: %v\n%s", err, data)
	}
	pages, entries := doc.Log.Pages, doc.Log.Entries
	if len(pages) != 2 || pages[0].ID != "page_h1" || pages[1].ID != "page_h2" || pages[0].PageTimings.OnLoad <= 0 || len(entries) != 18 {
		t.Fatalf("HAR pages %+v, %d entries; want page_h1 and page_h2 with their load times, 18 entries", pages, len(entries))
	}
	if e := entries[17]; e.Pageref != "page_h2" || e.Connection != "h2-1" {
		t.Errorf("last entry %+v; want page_h2 on connection h2-1", e)
	}
	missing := filepath.Join(t.TempDir(), "missing", "page.har")
	code, _, stderr = run(t, context.Background(), "page", "-n", "1", "--har", missing)
	if code != ExitUsage || !strings.Contains(stderr, "--har: open ") || !strings.Contains(stderr, "hint: give a file in a directory") {
		t.Errorf("page --har in a missing directory = %d, %q; want a usage error with a hint", code, stderr)
	}
}

// TestPageSurvey surveys generated sites of the embedded server from a
// --urls file and checks the report: a line per page, the spread of the
// difference across pages and its sentence; then the usage errors.
func TestPageSurvey(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, srv.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/page/images?n=5&size=1000", "/page/images?n=20&size=3000", "/page/styled"}
	list := "# generated sites\n"
	for _, p := range paths {
		list += srv.HTTPSURL + p + " " + srv.HTTPURL + p + "\n"
	}
	urls := filepath.Join(dir, "pages.txt")
	if err := os.WriteFile(urls, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "survey.html")
	code, stdout, stderr := run(t, context.Background(), "page", "--urls", urls, "--cacert", ca, "--protocols", "http,h1,h2", "-n", "3", "--html", html)
	if code != ExitOK {
		t.Fatalf("page --urls = %d, stderr %q", code, stderr)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "Each difference across pages") || !strings.Contains(string(b), "TLS alone (http → h1)") {
		t.Errorf("page --urls --html: %v; want the report with the differences across pages", err)
	}
	want := []string{"page survey: 3 pages, 3 loads per protocol each", "http ms", "http → h1", "h1 → h2",
		"TLS alone (http → h1) across 3 pages", "multiplexing (h1 → h2) across 3 pages", "10%", "90%"}
	for _, p := range paths {
		want = append(want, srv.HTTPSURL+p)
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("page --urls output lacks %q:\n%s", w, stdout)
		}
	}
	if n := strings.Count(stdout, "% of pages, "); n != 2 {
		t.Errorf("%d sentences across pages; want 2:\n%s", n, stdout)
	}
	checkSurveyJSONAndHAR(t, urls, ca, len(paths))
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--urls", urls, srv.HTTPSURL + "/"}, "give no URL with it"},
		{[]string{"--urls", urls, "--csv"}, "describe one page, not a survey"},
		{[]string{"--urls", urls, "--rtt", "40ms"}, "loads the pages as they are"},
		{[]string{"--urls", filepath.Join(dir, "missing.txt")}, "hint: give a file with one page's URL per line"},
		{[]string{"--urls", ca}, "line 1: "},
	} {
		code, _, stderr := run(t, context.Background(), append([]string{"page"}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("page %v = %d, %q; want a usage error with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// checkSurveyJSONAndHAR runs the survey with --json and --har: the JSON
// has every page with its two protocols' summaries, and the HAR a page
// per page and protocol (page_1_h1, ...), each with its entries.
func checkSurveyJSONAndHAR(t *testing.T, urls, ca string, pages int) {
	har := filepath.Join(t.TempDir(), "survey.har")
	code, stdout, stderr := run(t, context.Background(), "page", "--urls", urls, "--cacert", ca, "--protocols", "h1,h2", "-n", "2", "--json", "--har", har)
	if code != ExitOK {
		t.Fatalf("page --urls --json --har = %d, stderr %q", code, stderr)
	}
	var doc struct {
		Schema string
		Result page.SurveyResult
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Schema != "httpslab/page-survey/v1" || len(doc.Result.Pages) != pages ||
		len(doc.Result.Pages[0].LoadTimes) != 2 || len(doc.Result.Effects) != 1 {
		t.Fatalf("page --urls --json: %v, %+v; want httpslab/page-survey/v1 with %d pages of 2 protocols and 1 effect", err, doc, pages)
	}
	data, err := os.ReadFile(har)
	if err != nil {
		t.Fatal(err)
	}
	var h report.HAR
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatalf("the survey's HAR: %v", err)
	}
	var ids []string
	for _, p := range h.Log.Pages {
		ids = append(ids, p.ID)
	}
	want := []string{}
	for i := 1; i <= pages; i++ {
		want = append(want, fmt.Sprintf("page_%d_h1", i), fmt.Sprintf("page_%d_h2", i))
	}
	if !slices.Equal(ids, want) || len(h.Log.Entries) < 2*pages || !strings.HasPrefix(h.Log.Entries[0].Connection, "1_h1-") {
		t.Errorf("the survey's HAR: pages %q, %d entries, first connection %q; want %q, entries, 1_h1-N", ids, len(h.Log.Entries), h.Log.Entries[0].Connection, want)
	}
}
