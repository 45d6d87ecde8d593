package tlsscan

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestHitRateInterrupted stops the hit-rate loop part way: the report
// keeps what was measured (handshake times, resumed N of N so far, PSK
// support proved by the resumptions seen) instead of zeros and "not
// checked".
func TestHitRateInterrupted(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	u, _ := url.Parse(n.HTTPSURL)
	tg := &target{addr: u.Host, host: u.Hostname(), path: "/", timeout: 5 * time.Second, dialer: &countingDialer{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The chains' priming requests and at least 5 resumed ones are
		// in the log: chainsInFlight chains started, and each that
		// started another after it made chainLength reconnections.
		wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
		defer wcancel()
		_, _ = labtest.WaitAccessLog(wctx, n, chainsInFlight+10)
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

// TestResumptionTLS12Unspeakable: a server whose TLS 1.2 suites Go does
// not implement still has its TLS 1.3 resumption checked; only the TLS
// 1.2 checks are noted as not run.
func TestResumptionTLS12Unspeakable(t *testing.T) {
	t.Parallel()
	rep := auditNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2 TLSv1.3;\nssl_ciphers CAMELLIA256-SHA:@SECLEVEL=0;\nssl_session_cache shared:c:1m;"})
	res := rep.Resumption
	if res.TLS13PSK == nil || !*res.TLS13PSK || res.Resumed != res.Attempts || res.TLS12SessionID != nil {
		t.Errorf("resumption %+v; want TLS 1.3 resumed every time and TLS 1.2 not checked", res)
	}
	if !strings.Contains(strings.Join(rep.NotChecked, "\n"), "resumption: TLS 1.2: ") {
		t.Errorf("not checked %q; want the TLS 1.2 resumption check named", rep.NotChecked)
	}
}
