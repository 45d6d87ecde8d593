package demo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/transport"
)

func startServer(t *testing.T, cfg embedded.Config) *embedded.Server {
	t.Helper()
	srv, err := embedded.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestRunBehindLink: behind a link the demo measures the link matrix
// (here a short one) and neither loads nor audits (needs root).
func TestRunBehindLink(t *testing.T) {
	srv := startServer(t, embedded.Config{Link: &netem.Config{RTT: 20 * time.Millisecond}})
	keys := []compare.Key{
		{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"},
		{Scheme: "https", Proto: transport.HTTP1, TLS: "1.3", Handshake: "full", Conn: "fresh"},
	}
	res, err := Run(context.Background(), srv, Config{Runs: 3, LoadTime: time.Second, LinkKeys: keys})
	if err != nil {
		t.Fatal(err)
	}
	if !res.BehindLink || !strings.Contains(res.Server, "rtt 20ms") || len(res.Comparison.Variants) != 2 || res.Load != nil || res.Audit != nil {
		t.Fatalf("behind a link: %+v; want the link named, 2 variants, no load or audit", res)
	}
	if got := res.Comparison.Variants[1].Name; got != keys[1].Name() {
		t.Errorf("variant named %q behind a link; want compare's name %q", got, keys[1].Name())
	}
	if rtt := res.Comparison.RTT; rtt < 18*time.Millisecond || rtt > 30*time.Millisecond {
		t.Errorf("RTT %v behind a 20 ms link", rtt)
	}
	// The page behind the link: every load takes at least the handshake,
	// the document's round trip and the images' (4 RTT), and HTTP/1.1's
	// six connections, each taking its images one round trip at a time,
	// take longer than HTTP/2's one.
	if res.Page == nil || res.PageErr != "" || len(res.Page.Protocols) != 2 {
		t.Fatalf("page %+v (%s); want h1 and h2 loaded", res.Page, res.PageErr)
	}
	h1, h2 := res.Page.Protocols[0], res.Page.Protocols[1]
	if h1.LoadTime.Min < 80 || h2.LoadTime.Min < 80 || h1.LoadTime.Median <= h2.LoadTime.Median {
		t.Errorf("page loads: h1 %v ms (min %v), h2 %v ms (min %v); want each above 4 RTT (80 ms), h1 the longer",
			h1.LoadTime.Median, h1.LoadTime.Min, h2.LoadTime.Median, h2.LoadTime.Min)
	}
}

// TestFailure: on loopback a dropped variant, a failed load run or a
// failed audit fails the demo, in that order; behind a link compare's own
// rule applies, under which a dropped variant beside measured ones does
// not.
func TestFailure(t *testing.T) {
	measured := compare.VariantResult{Name: "HTTP/1.1 plain", Key: plain, Total: compare.Summary{N: 3}}
	https := compare.VariantResult{Name: "HTTPS HTTP/1.1", Key: httpsKey, Total: compare.Summary{N: 3}}
	dropped := compare.VariantResult{Name: "HTTP/3", Key: h3Key, Dropped: "failed in the warm-up: no QUIC", Err: errors.New("no QUIC")}
	for _, tt := range []struct {
		res  Result
		want string
	}{
		{Result{Comparison: &compare.Result{Variants: []compare.VariantResult{measured, https}}}, ""},
		{Result{Comparison: &compare.Result{Variants: []compare.VariantResult{measured, https, dropped}}}, "demo: HTTP/3 failed: no QUIC"},
		{Result{Comparison: &compare.Result{Variants: []compare.VariantResult{measured, https}}, Load: []Load{{Name: KeepAlive, Err: "refused"}}}, "demo: load keep-alive failed: refused"},
		{Result{Comparison: &compare.Result{Variants: []compare.VariantResult{measured, https}}, AuditErr: "timeout"}, "demo: audit failed: timeout"},
		{Result{Comparison: &compare.Result{Variants: []compare.VariantResult{measured, https}}, PageErr: "refused", AuditErr: "timeout"}, "demo: the page loads failed: refused"},
		{Result{BehindLink: true, Comparison: &compare.Result{Stop: compare.StopRuns, Variants: []compare.VariantResult{measured, https}}, PageErr: "refused"}, "demo: the page loads failed: refused"},
		{Result{BehindLink: true, Comparison: &compare.Result{Stop: compare.StopRuns, Variants: []compare.VariantResult{measured, https, dropped}}}, ""},
	} {
		err := tt.res.Failure()
		if got := errString(err); (tt.want == "" && err != nil) || (tt.want != "" && got != tt.want) {
			t.Errorf("Failure() = %v; want %q", err, tt.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestRunPage: on loopback the demo loads its page over HTTP/1.1 and
// HTTP/2, the rounds asked for, every resource, on six connections and
// on one; NoPage leaves it out.
func TestRunPage(t *testing.T) {
	srv := startServer(t, embedded.Config{Server: lab.Config{NoHTTP3: true}})
	res, err := Run(context.Background(), srv, Config{Runs: 1, NoAudit: true, PageRounds: 3})
	if res == nil || res.Page == nil || res.PageErr != "" || len(res.Page.Protocols) != 2 || len(res.Page.Differences) != 1 {
		t.Fatalf("Run: %v; page %+v; want h1 and h2 and their difference", err, res)
	}
	for i, want := range []struct {
		proto page.Protocol
		conns float64
	}{{page.HTTP1, 6}, {page.HTTP2, 1}} {
		p := res.Page.Protocols[i]
		if p.Protocol != want.proto || len(p.Loads) != 3 || p.Requests != 31 || p.Failed != 0 || p.Conns != want.conns {
			t.Errorf("%s: %d loads, %v requests, %v failed, %v connections; want %s, 3, 31, 0, %v",
				p.Protocol, len(p.Loads), p.Requests, p.Failed, p.Conns, want.proto, want.conns)
		}
	}
	noPage, _ := Run(context.Background(), srv, Config{Runs: 1, NoAudit: true, NoPage: true})
	if noPage == nil || noPage.Page != nil || noPage.PageErr != "" {
		t.Errorf("NoPage: %+v; want no page", noPage)
	}
}
