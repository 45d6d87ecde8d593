package tlsscan

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestHitRateInterrupted stops the hit-rate loop part way: the report
// keeps what was measured (handshake times, resumed N of N so far, PSK
// support proved by the resumptions seen) instead of zeros and "not
// checked".
func TestHitRateInterrupted(t *testing.T) {
	n := lab.StartTestNginx(t, lab.NginxConfig{})
	u, _ := url.Parse(n.HTTPSURL)
	tg := &target{addr: u.Host, host: u.Hostname(), path: "/", timeout: 5 * time.Second, dialer: &countingDialer{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The priming request and 5 resumed ones are in the log.
		wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
		defer wcancel()
		_, _ = n.WaitAccessLog(wctx, 6)
		cancel()
	}()
	var res Resumption
	err := tg.hitRate(ctx, &res, VersionTLS13, 100000)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("hitRate = %v; want context.Canceled", err)
	}
	if res.Resumed < 5 || res.Attempts >= 100000 || res.TLS13PSK == nil || !*res.TLS13PSK ||
		res.FullHandshake <= 0 || res.ResumedHandshake <= 0 {
		t.Errorf("interrupted hit rate %+v; want resumed 5 or more of fewer than 100000, PSK yes, both handshake times", res)
	}
}
