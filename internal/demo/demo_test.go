package demo

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/netem"
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
