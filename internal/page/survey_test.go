package page

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestSurveyGeneratedSites surveys a set of generated sites, the
// embedded server's test pages with different parameters, and one dead
// page: every live page has its medians and differences, the dead one
// its error, and each difference spreads over the live pages.
func TestSurveyGeneratedSites(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	paths := []string{"/page/images?n=5&size=1000", "/page/images?n=30&size=4000", "/page/scripts?n=12&size=20000", "/page/styled", "/page/mixed?n=20"}
	var pages []SurveyPage
	for _, p := range paths {
		pages = append(pages, SurveyPage{URL: srv.HTTPSURL + p, HTTPURL: srv.HTTPURL + p})
	}
	dead := "https://" + labtest.ClosedAddr(t, "tcp") + "/"
	pages = append(pages, SurveyPage{URL: dead, HTTPURL: "http://" + labtest.ClosedAddr(t, "tcp") + "/"})
	s := Survey{
		Compare: Compare{Load: Config{TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}}, Protocols: []Protocol{HTTP, HTTP1, HTTP2}, Rounds: 3, Seed: 5},
		Pages:   pages,
	}
	res, err := s.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), dead) {
		t.Errorf("Run: %v; want the dead page's error", err)
	}
	if len(res.Pages) != len(pages) || res.Rounds != 3 {
		t.Fatalf("%d pages, %d rounds; want %d, 3", len(res.Pages), res.Rounds, len(pages))
	}
	for i, p := range res.Pages[:len(paths)] {
		if p.Error != "" || len(p.LoadTimes) != 3 || len(p.Differences) != 2 || p.URL != pages[i].URL {
			t.Errorf("page %s: error %q, %d load times, %d differences; want none, 3, 2", p.URL, p.Error, len(p.LoadTimes), len(p.Differences))
			continue
		}
		for j, lt := range p.LoadTimes {
			if lt.N != 3 || lt.Median <= 0 {
				t.Errorf("page %s, %s: %d loads, median %v ms; want 3 and a time", p.URL, s.Compare.Protocols[j], lt.N, lt.Median)
			}
		}
	}
	if last := res.Pages[len(paths)]; last.Error == "" {
		t.Errorf("the dead page has no error: %+v", last)
	}
	if len(res.Effects) != 2 || res.Effects[0].Name != "TLS alone" || res.Effects[1].Name != "multiplexing" {
		t.Fatalf("effects %+v; want TLS alone and multiplexing", res.Effects)
	}
	for _, e := range res.Effects {
		if len(e.MS) != len(paths) || !slices.IsSorted(e.MS) || !slices.IsSorted(e.QuantMS) || e.QuantMS[0] < e.MS[0] || e.QuantMS[4] > e.MS[len(e.MS)-1] {
			t.Errorf("%s: shifts %v, quantiles %v; want %d sorted shifts and quantiles inside them", e.Name, e.MS, e.QuantMS, len(paths))
		}
	}
}

// TestSpreads checks the quantiles across pages on known shifts, the
// round trips only over the pages that have them, and the order of the
// differences.
func TestSpreads(t *testing.T) {
	var pages []PageResult
	for i := range 11 {
		d := compare.Diff{MS: float64(10 - i)} // 10, 9, ..., 0
		if i%2 == 0 {
			d.RTTs = d.MS / 2
		}
		pages = append(pages, PageResult{Differences: []Difference{
			{Name: "TLS alone", From: HTTP, To: HTTP1, Diff: d},
			{Name: "multiplexing", From: HTTP1, To: HTTP2, Diff: compare.Diff{MS: -float64(i)}},
		}})
	}
	got := spreads(pages)
	if len(got) != 2 || got[0].Name != "TLS alone" || got[1].Name != "multiplexing" {
		t.Fatalf("spreads: %+v; want TLS alone, then multiplexing", got)
	}
	if want := []float64{1, 2.5, 5, 7.5, 9}; !slices.Equal(got[0].QuantMS, want) {
		t.Errorf("TLS alone quantiles %v; want %v", got[0].QuantMS, want)
	}
	// Six pages have round trips, 5 to 0; a shift of 0 RTT is one the RTT
	// could not count, and is left out.
	if want := []float64{1.4, 2, 3, 4, 4.6}; got[0].RTTPages != 5 || !approxEqual(got[0].QuantRTTs, want) {
		t.Errorf("TLS alone over %d pages in RTT: %v; want 5 pages, %v", got[0].RTTPages, got[0].QuantRTTs, want)
	}
	if want := []float64{-9, -7.5, -5, -2.5, -1}; !slices.Equal(got[1].QuantMS, want) || got[1].QuantRTTs != nil {
		t.Errorf("multiplexing quantiles %v, in RTT %v; want %v and none", got[1].QuantMS, got[1].QuantRTTs, want)
	}
}

// TestReadSurvey checks the --urls file: comments and blank lines
// skipped, an optional plain-HTTP URL, and bad lines refused by number.
func TestReadSurvey(t *testing.T) {
	got, err := ReadSurvey(strings.NewReader("# pages\n\nhttps://a.test/\n  https://b.test/x http://b.test:8080/x  \n"))
	want := []SurveyPage{{URL: "https://a.test/"}, {URL: "https://b.test/x", HTTPURL: "http://b.test:8080/x"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("ReadSurvey = %v, %v; want %v", got, err, want)
	}
	for _, tt := range []struct{ in, want string }{
		{"", "no page"},
		{"# only\n", "no page"},
		{"https://a.test/\nftp://b.test/\n", "line 2: \"ftp://b.test/\""},
		{"https://a.test/ http://a.test/ x\n", "line 1: 3 fields"},
		{"/page/images\n", "line 1"},
		{strings.Repeat("x", 70<<10), "reading the pages"},
	} {
		if _, err := ReadSurvey(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadSurvey(%.40q) = %v; want an error with %q", tt.in, err, tt.want)
		}
	}
}

func approxEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 })
}
