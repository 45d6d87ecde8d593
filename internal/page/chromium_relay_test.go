//go:build !race

package page

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestChromiumIsolatedRelays loads pages behind an emulated link in an
// isolated Chromium: a page that names an image on a second origin (the
// same address, another port) gets it through a relay of its own, on a
// connection of its own, and a page loaded over HTTP/3 gets every
// response over QUIC, relayed over UDP.
func TestChromiumIsolatedRelays(t *testing.T) {
	needChromium(t)
	ctx := context.Background()
	link, err := netem.Start(ctx, netem.Config{RTT: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	ca, err := lab.NewCA("")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue("", link.ServerIP.String())
	if err != nil {
		t.Fatal(err)
	}
	behind := func(h http.Handler) *lab.Server {
		srv, err := lab.Start(ctx, lab.Config{Host: link.ServerIP.String(), Listen: link.Listen, ListenPacket: link.ListenPacket,
			Certificate: &leaf.TLS, Handler: h})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
		return srv
	}
	assets := behind(nil)
	mux := http.NewServeMux()
	mux.Handle("/", lab.Handler())
	mux.HandleFunc("GET /two-origins", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>two origins</title><img src="/page/res/near.png?size=2000"><img src="%s/page/res/far.png?size=3000">`, assets.HTTPSURL)
	})
	pg := behind(mux)
	trust := transport.TLS{Trust: transport.Trust{RootCAs: ca.Pool()}}

	ld, err := Run(ctx, Config{URL: pg.HTTPSURL + "/two-origins", Protocol: HTTP2, Engine: EngineChromium, TLS: trust, LoadTimeout: 90 * time.Second})
	if err != nil {
		t.Fatalf("two origins: %v", err)
	}
	origins := map[string]int{}
	for _, r := range ld.Requests {
		if r.Status != 200 || r.Proto != "HTTP/2.0" {
			t.Errorf("two origins: %s: %s %d %s; want HTTP/2.0 200", r.URL, r.Proto, r.Status, r.Error)
		}
		if r.Conn > 0 {
			origins[ld.Conns[r.Conn-1].Origin]++
		}
	}
	if len(ld.Requests) != 3 || ld.Failed != 0 || len(ld.Conns) != 2 || origins[assets.HTTPSURL] != 1 || origins[pg.HTTPSURL] != 2 {
		t.Errorf("two origins: %d requests, %d failed, %d connections, by origin %v; want 3, none, 2: the page's 2, the other's 1",
			len(ld.Requests), ld.Failed, len(ld.Conns), origins)
	}

	ld, err = Run(ctx, Config{URL: assets.HTTPSURL + "/page/images?n=5&size=2000", Protocol: HTTP3, Engine: EngineChromium, TLS: trust, LoadTimeout: 90 * time.Second})
	if err != nil {
		t.Fatalf("HTTP/3: %v", err)
	}
	for _, r := range ld.Requests {
		if r.Status != 200 || r.Proto != "HTTP/3.0" {
			t.Errorf("HTTP/3: %s: %s %d %s; want HTTP/3.0 200", r.URL, r.Proto, r.Status, r.Error)
		}
	}
	if len(ld.Requests) != 6 || ld.Failed != 0 || len(ld.Conns) != 1 {
		t.Errorf("HTTP/3: %d requests, %d failed, %d connections; want 6, none, 1", len(ld.Requests), ld.Failed, len(ld.Conns))
	}
	if left := browserChildren(); len(left) > 0 {
		t.Errorf("browser processes left: %v", left)
	}
}
