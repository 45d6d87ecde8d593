//go:build !race

package page

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
)

// agreementPages are seed 003's three pages, as serve generates them.
var agreementPages = []string{
	"/page/images?n=360&size=18300",
	"/page/scripts?n=360&size=33100",
	"/page/mixed",
}

// TestChromiumAgreement loads seed 003's three pages behind an emulated
// link of 40 ms and 20 Mbit/s in Chromium and with httpslab's engine,
// over HTTP/1.1 and HTTP/2: the browser requests exactly what httpslab
// requests, over as many connections, and its load time is within a
// loose bound of httpslab's. The link's rate keeps both bound by the
// network; without it, the browser's receiving, parsing and decoding on
// a busy machine of two cores (shared with the link's forwarder and the
// server) can take longer than the network, which no scheduler models.
// The bound is loose for a busy machine; scripts/page-vs-chromium.sh
// measures the real agreement. The round trip the link delivered, as
// httpslab's TCP connects saw it, is checked to be the link's.
func TestChromiumAgreement(t *testing.T) {
	needChromium(t)
	srv, err := embedded.Start(context.Background(), embedded.Config{
		Server: lab.Config{NoHTTP3: true},
		Link:   &netem.Config{RTT: linkRTT, Bandwidth: 20_000_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, path := range agreementPages {
		for _, proto := range []Protocol{HTTP1, HTTP2} {
			t.Run(fmt.Sprintf("%s/%s", path, proto), func(t *testing.T) {
				cfg := configFor(srv.Server, proto, path)
				cfg.LoadTimeout = 2 * time.Minute
				own := load(t, cfg)
				browser, err := Run(context.Background(), browserConfig(cfg))
				if err != nil {
					t.Fatalf("Chromium: %v", err)
				}
				got, want := paths(t, browser), paths(t, own)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("Chromium made %d requests, httpslab %d; want the same set", len(got), len(want))
				}
				if browser.Failed != 0 || own.Failed != 0 || len(browser.Conns) != len(own.Conns) {
					t.Errorf("failed: Chromium %d, httpslab %d; connections: Chromium %d, httpslab %d; want none failed, as many connections",
						browser.Failed, own.Failed, len(browser.Conns), len(own.Conns))
				}
				ratio := float64(browser.Duration) / float64(own.Duration)
				t.Logf("load: Chromium %v (DOMContentLoaded %v), httpslab %v: %.2f; RTT: Chromium %v, httpslab %v",
					browser.Duration.Round(time.Millisecond), browser.DOMContentLoaded.Round(time.Millisecond), own.Duration.Round(time.Millisecond),
					ratio, browser.RTT, own.RTT)
				if ratio < 0.6 || ratio > 3 {
					t.Errorf("Chromium's load time is %.2f times httpslab's; want 0.6 to 3", ratio)
				}
				if own.RTT < linkRTT*95/100 || own.RTT > 3*linkRTT {
					t.Errorf("the link delivered a round trip of %v; want about %v", own.RTT, linkRTT)
				}
			})
		}
	}
}
