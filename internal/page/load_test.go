package page

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// configFor is a load of path on the embedded server over proto.
func configFor(srv *lab.Server, proto Protocol, path string) Config {
	base := srv.HTTPSURL
	if !proto.secure() {
		base = srv.HTTPURL
	}
	return Config{URL: base + path, Protocol: proto, TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}}
}

func load(t *testing.T, cfg Config) *Load {
	t.Helper()
	ld, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("loading %s over %s: %v", cfg.URL, cfg.Protocol, err)
	}
	return ld
}

// paths returns the path and query of every request of ld, in ID order.
func paths(t *testing.T, ld *Load) []string {
	var out []string
	for _, r := range ld.Requests {
		u, err := url.Parse(r.URL)
		if err != nil {
			t.Fatalf("request URL %q: %v", r.URL, err)
		}
		out = append(out, u.RequestURI())
	}
	return out
}

// settled waits until the server has accepted tcp TCP connections and
// completed hs handshakes in all, or a second has passed, and returns its
// counters. A connection that the load opened and did not need (the
// queue ran empty while it connected) is complete in the kernel before
// the server accepts it, and a TLS 1.3 client is done with a handshake
// before the server has read its Finished.
func settled(srv *lab.Server, tcp, hs int64) lab.Stats {
	deadline := time.Now().Add(time.Second)
	for {
		st := srv.Stats()
		if (st.TCPConns >= tcp && st.Handshakes >= hs) || time.Now().After(deadline) {
			return st
		}
		runtime.Gosched()
	}
}

// TestConnectionsPerProtocol checks, from the server's side, that a page
// of more than six resources takes exactly six HTTP/1.1 connections (with
// and without TLS) and exactly one HTTP/2 or HTTP/3 connection, and that
// every response came over the protocol asked for.
func TestConnectionsPerProtocol(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	tests := []struct {
		proto           Protocol
		tcp, handshakes int64
		conns           int
		respProto       string
	}{
		{HTTP, 6, 0, 6, "HTTP/1.1"},
		{HTTP1, 6, 6, 6, "HTTP/1.1"},
		{HTTP2, 1, 1, 1, "HTTP/2.0"},
		{HTTP3, 0, 1, 1, "HTTP/3.0"},
	}
	for _, tt := range tests {
		before := srv.Stats()
		ld := load(t, configFor(srv, tt.proto, "/page/images?n=40&size=2000"))
		after := settled(srv, before.TCPConns+tt.tcp, before.Handshakes+tt.handshakes)
		if got := after.TCPConns - before.TCPConns; got != tt.tcp {
			t.Errorf("%s: the server accepted %d TCP connections; want %d", tt.proto, got, tt.tcp)
		}
		if got := after.Handshakes - before.Handshakes; got != tt.handshakes {
			t.Errorf("%s: the server completed %d handshakes; want %d", tt.proto, got, tt.handshakes)
		}
		if len(ld.Conns) != tt.conns || len(ld.Requests) != 41 || ld.Failed != 0 || ld.Resumed != 0 {
			t.Errorf("%s: %d connections, %d requests, %d failed, %d resumed; want %d, 41, 0, 0", tt.proto, len(ld.Conns), len(ld.Requests), ld.Failed, ld.Resumed, tt.conns)
		}
		for _, r := range ld.Requests {
			if r.Proto != tt.respProto || r.Status != 200 || r.Conn == 0 {
				t.Errorf("%s: request %d %s: %s %d on connection %d; want %s 200", tt.proto, r.ID, r.URL, r.Proto, r.Status, r.Conn, tt.respProto)
				break
			}
		}
		if ld.Duration <= 0 || ld.TTFB <= 0 || ld.TTFB > ld.Duration || ld.Payload.Read < 40*2000 || ld.RTT <= 0 || ld.RTT > ld.TTFB {
			t.Errorf("%s: load %v, TTFB %v, RTT %v, %d payload bytes read; want 0 < RTT < TTFB <= load, at least %d bytes", tt.proto, ld.Duration, ld.TTFB, ld.RTT, ld.Payload.Read, 40*2000)
		}
		if ld.PhaseTotals[PhaseDownload] <= 0 || ld.PhaseTotals[PhaseWait] <= 0 || (tt.proto == HTTP1 && ld.PhaseTotals[PhaseTLS] <= 0) {
			t.Errorf("%s: phase totals %v; want downloading, waiting and, over TLS, handshakes", tt.proto, ld.PhaseTotals)
		}
		if tt.proto.secure() && ld.Handshake.Read == 0 {
			t.Errorf("%s: no handshake bytes", tt.proto)
		}
	}
}

// TestDiscoveryFindsEveryResource loads each test page and checks that
// the load fetched exactly what a browser fetches: every image or script,
// the styled page's stylesheets, its used font and matched backgrounds,
// and none of what it names but does not use.
func TestDiscoveryFindsEveryResource(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	pageOf := func(doc, prefix, ext string, sizes []int) []string {
		out := []string{doc}
		for i, s := range sizes {
			out = append(out, fmt.Sprintf("/page/res/%s-%d.%s?size=%d", prefix, i, ext, s))
		}
		return out
	}
	same := func(n, size int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = size
		}
		return s
	}
	tests := []struct {
		path string
		want []string
	}{
		{"/page/images?n=360&size=18300", pageOf("/page/images?n=360&size=18300", "img", "png", same(360, 18300))},
		{"/page/scripts?n=30&size=33100", pageOf("/page/scripts?n=30&size=33100", "script", "js", same(30, 33100))},
		{"/page/mixed", pageOf("/page/mixed", "img", "jpg", lab.MixedSizes(lab.MixedPageResources))},
		{"/page/styled", lab.StyledPageFetched},
	}
	for _, tt := range tests {
		ld := load(t, configFor(srv, HTTP2, tt.path))
		got := paths(t, ld)
		if diff := cmp.Diff(tt.want, got, cmp.Transformer("sort", func(s []string) []string { return slices.Sorted(slices.Values(s)) })); diff != "" {
			t.Errorf("%s: requests (-want +got):\n%s", tt.path, diff)
		}
		if ld.Failed != 0 || ld.Skipped != 0 {
			t.Errorf("%s: %d failed, %d skipped; want none", tt.path, ld.Failed, ld.Skipped)
		}
	}
}

// TestPriorityOrder checks that requests waiting for a connection go out
// in the browser's order: on a page whose stylesheet and script come
// after many images, over one HTTP/1.1 connection, the stylesheet and the
// script are sent before the images still waiting.
func TestPriorityOrder(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		for i := range 20 {
			fmt.Fprintf(&b, `<img src="/img%d.png">`, i)
		}
		b.WriteString(`<script src="/s.js"></script><link rel=stylesheet href="/c.css">`)
		fmt.Fprint(w, b.String())
	})
	mux.HandleFunc("/c.css", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "p{}") })
	mux.HandleFunc("/s.js", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "1") })
	mux.HandleFunc("/{img}", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "png") })
	ts := httptest.NewServer(mux)
	defer ts.Close()
	ld := load(t, Config{URL: ts.URL + "/", Protocol: HTTP, MaxConnsPerOrigin: 1})
	order := slices.Clone(ld.Requests)
	slices.SortFunc(order, func(a, b Request) int { return int(a.End - b.End) })
	var kinds []Kind
	for _, r := range order[:3] {
		kinds = append(kinds, r.Kind)
	}
	if want := []Kind{KindDocument, KindStylesheet, KindScript}; !slices.Equal(kinds, want) {
		t.Errorf("first three completed: %v; want %v", kinds, want)
	}
}

// brokenPage serves a page naming a resource that answers 404 and one on
// a port nothing listens on.
func brokenPage(t *testing.T, deadPort int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<img src="/ok.png"><img src="/missing.png"><img src="%s://127.0.0.1:%d/dead.png"><img src="/ok2.png">`,
				map[bool]string{true: "https", false: "http"}[r.TLS != nil], deadPort)
		case "/missing.png":
			http.NotFound(w, r)
		default:
			fmt.Fprint(w, "png")
		}
	})
}

// TestFailedResources checks that a 404 and a dead origin are failed
// resources of a load that still completes, over HTTP/1.1 and HTTP/2.
func TestFailedResources(t *testing.T) {
	dead := labtest.FreePort(t, "tcp")
	plain := httptest.NewServer(brokenPage(t, dead))
	defer plain.Close()
	secure := httptest.NewUnstartedServer(brokenPage(t, dead))
	secure.EnableHTTP2 = true
	secure.StartTLS()
	defer secure.Close()
	pool := secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	for _, cfg := range []Config{
		{URL: plain.URL + "/", Protocol: HTTP},
		{URL: secure.URL + "/", Protocol: HTTP2, TLS: transport.TLS{Trust: transport.Trust{RootCAs: pool}}},
	} {
		ld := load(t, cfg)
		if len(ld.Requests) != 5 || ld.Failed != 2 {
			t.Fatalf("%s: %d requests, %d failed; want 5 and 2", cfg.Protocol, len(ld.Requests), ld.Failed)
		}
		byPath := map[string]Request{}
		for _, r := range ld.Requests {
			u, _ := url.Parse(r.URL)
			byPath[u.Path] = r
		}
		if r := byPath["/missing.png"]; r.Status != 404 || !strings.Contains(r.Error, "status 404") {
			t.Errorf("%s: /missing.png: status %d, error %q; want 404", cfg.Protocol, r.Status, r.Error)
		}
		if r := byPath["/dead.png"]; r.Conn != 0 || !strings.Contains(r.Error, "connection refused") {
			t.Errorf("%s: /dead.png on connection %d, error %q; want no connection, refused", cfg.Protocol, r.Conn, r.Error)
		}
		if r := byPath["/ok2.png"]; r.Failed() || r.Status != 200 {
			t.Errorf("%s: /ok2.png: %d %q; want 200", cfg.Protocol, r.Status, r.Error)
		}
	}
}

// TestProtocolMismatchFailsTheLoad checks that an HTTP/2 load of a
// server without HTTP/2 fails whole, never falling back.
func TestProtocolMismatchFailsTheLoad(t *testing.T) {
	ts := httptest.NewTLSServer(brokenPage(t, 1))
	defer ts.Close()
	pool := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	_, err := Run(context.Background(), Config{URL: ts.URL + "/", Protocol: HTTP2, TLS: transport.TLS{Trust: transport.Trust{RootCAs: pool}}})
	if !errors.Is(err, ErrProtocol) {
		t.Errorf("HTTP/2 load of an HTTP/1.1-only server: %v; want ErrProtocol", err)
	}
}

// TestLimits checks the resource limit and that a load stays within it.
func TestLimits(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	cfg := configFor(srv, HTTP1, "/page/images?n=50&size=10")
	cfg.MaxResources = 10
	ld := load(t, cfg)
	if len(ld.Requests) != 10 || ld.Skipped != 41 {
		t.Errorf("MaxResources 10: %d requests, %d skipped; want 10 and 41", len(ld.Requests), ld.Skipped)
	}
}

// TestHeaderLimit checks that a response header over MaxHeaderBytes
// fails its request, over HTTP/1.1 and HTTP/2, and the load goes on.
func TestHeaderLimit(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<img src="/big.png"><img src="/small.png">`)
			return
		}
		if r.URL.Path == "/big.png" {
			w.Header().Set("X-Big", strings.Repeat("x", 8000))
		}
		fmt.Fprint(w, "png")
	})
	plain := httptest.NewServer(h)
	defer plain.Close()
	secure := httptest.NewUnstartedServer(h)
	secure.EnableHTTP2 = true
	secure.StartTLS()
	defer secure.Close()
	pool := secure.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	for _, cfg := range []Config{
		{URL: plain.URL + "/", Protocol: HTTP, MaxHeaderBytes: 4096},
		{URL: secure.URL + "/", Protocol: HTTP2, TLS: transport.TLS{Trust: transport.Trust{RootCAs: pool}}, MaxHeaderBytes: 4096},
	} {
		ld := load(t, cfg)
		// Over HTTP/2 the limit is announced in SETTINGS: a Go server
		// then refuses to send the header with a connection error, which
		// fails small.png too when it is still in flight on it.
		want, failed := "larger than the limit of 4096 bytes", []int{1}
		if cfg.Protocol == HTTP2 {
			want, failed = "COMPRESSION_ERROR", []int{1, 2}
		}
		if len(ld.Requests) != 3 || !slices.Contains(failed, ld.Failed) || ld.Requests[0].Failed() || !strings.Contains(ld.Requests[1].Error, want) {
			t.Errorf("%s: %d requests, %d failed, big.png: %q; want 3, %v, %q", cfg.Protocol, len(ld.Requests), ld.Failed, ld.Requests[1].Error, failed, want)
		}
	}
}

// TestRedirects checks that a sub-resource's redirect is followed as a
// request of its own, and that a redirecting document fails the load
// with the URL to load instead.
func TestRedirects(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<link rel=stylesheet href=/old.css><img src="/moved.png"><img src="/loop">`)
		case "/old.css":
			http.Redirect(w, r, "/new.css", http.StatusMovedPermanently)
		case "/new.css":
			fmt.Fprint(w, `body { background: url(/bg.png) }`)
		case "/moved.png":
			http.Redirect(w, r, "/final.png", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/home":
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "png")
		}
	}))
	defer ts.Close()
	ld := load(t, Config{URL: ts.URL + "/", Protocol: HTTP})
	want := []string{"/", "/old.css", "/moved.png", "/loop", "/new.css", "/final.png", "/bg.png"}
	if got := paths(t, ld); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) || ld.Failed != 0 {
		t.Errorf("requests %v, %d failed; want %v, none failed", got, ld.Failed, want)
	}
	_, err := Run(context.Background(), Config{URL: ts.URL + "/home", Protocol: HTTP})
	if !errors.Is(err, ErrRedirect) || !strings.Contains(err.Error(), `to "/"`) {
		t.Errorf("load of a redirecting document: %v; want ErrRedirect naming /", err)
	}
}

// TestCrossOriginFonts checks that a font from another origin goes on a
// connection of its own, apart from that origin's other requests (the
// credential-less pool browsers keep), while a same-origin font shares
// the page's connection.
func TestCrossOriginFonts(t *testing.T) {
	assets := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "data") }))
	assets.EnableHTTP2 = true
	assets.StartTLS()
	defer assets.Close()
	pg := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<link rel=stylesheet href=/s.css><p class=x>text</p><img src="%s/a.png">`, assets.URL)
		case "/s.css":
			fmt.Fprintf(w, `@font-face { font-family: Far; src: url(%s/far.woff2) }
@font-face { font-family: Near; src: url(/near.woff2) }
.x { font-family: Far } body { font-family: Near }`, assets.URL)
		default:
			fmt.Fprint(w, "font")
		}
	}))
	pg.EnableHTTP2 = true
	pg.StartTLS()
	defer pg.Close()
	pool := pg.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	ld := load(t, Config{URL: pg.URL + "/", Protocol: HTTP2, TLS: transport.TLS{Trust: transport.Trust{RootCAs: pool}}})
	connOf := map[string]Conn{}
	for _, r := range ld.Requests {
		u, _ := url.Parse(r.URL)
		connOf[u.Path] = ld.Conns[r.Conn-1]
	}
	switch {
	case len(ld.Requests) != 5 || ld.Failed != 0 || len(ld.Conns) != 3:
		t.Errorf("%d requests, %d failed, %d connections; want 5, 0, 3", len(ld.Requests), ld.Failed, len(ld.Conns))
	case !connOf["/far.woff2"].Anonymous || connOf["/a.png"].Anonymous || connOf["/far.woff2"].ID == connOf["/a.png"].ID:
		t.Errorf("far.woff2 on %+v, a.png on %+v; want an anonymous connection of its own for the font", connOf["/far.woff2"], connOf["/a.png"])
	case connOf["/near.woff2"].ID != connOf["/"].ID:
		t.Errorf("near.woff2 on connection %d, the page on %d; want the same", connOf["/near.woff2"].ID, connOf["/"].ID)
	}
}

// TestTimeouts checks the per-request timeout (a resource that never
// answers fails, the load completes) and the per-load one (a load that
// cannot complete ends with an error and what it measured).
func TestTimeouts(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<img src="/never.png"><img src="/ok.png">`)
		case "/never.png":
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		default:
			fmt.Fprint(w, "png")
		}
	}))
	defer ts.Close()
	start := time.Now()
	ld := load(t, Config{URL: ts.URL + "/", Protocol: HTTP, RequestTimeout: 200 * time.Millisecond})
	if len(ld.Requests) != 3 || ld.Failed != 1 || !strings.Contains(ld.Requests[1].Error, "nothing of the response for 200ms") || time.Since(start) > 5*time.Second {
		t.Errorf("request timeout: %d requests, %d failed, never.png: %q, after %v; want 3, 1, a stall", len(ld.Requests), ld.Failed, ld.Requests[1].Error, time.Since(start))
	}
	ld, err := Run(context.Background(), Config{URL: ts.URL + "/", Protocol: HTTP, LoadTimeout: 200 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || ld == nil || len(ld.Requests) != 3 || ld.Requests[2].Failed() {
		t.Errorf("load timeout: %v with %v; want a deadline, and the other requests done", err, ld)
	}
}

// TestSlowIsNotStalled checks that --request-timeout gives up on a
// stalled request, not on a slow one, over HTTP/1.1 and HTTP/2: with a
// timeout of 1 s, images that trickle in over 1.5 s (10 bytes every
// 100 ms) complete, and one that sends a little and then nothing fails
// about 1 s after its last byte. Over HTTP/2 the server allows 2 streams at once for 6 images, so
// four requests wait for a stream while the others trickle, and that
// wait is not a stall either.
func TestSlowIsNotStalled(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<img src="/stall.png">`)
			for i := range 6 {
				fmt.Fprintf(w, `<img src="/slow%d.png">`, i)
			}
		case "/stall.png":
			w.Write([]byte("png"))
			w.(http.Flusher).Flush()
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		default:
			for range 15 {
				w.Write([]byte("0123456789"))
				w.(http.Flusher).Flush()
				time.Sleep(100 * time.Millisecond)
			}
		}
	})
	for _, proto := range []Protocol{HTTP1, HTTP2} {
		t.Run(string(proto), func(t *testing.T) {
			ts := httptest.NewUnstartedServer(h)
			ts.EnableHTTP2 = true
			ts.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 2}
			ts.StartTLS()
			defer ts.Close()
			pool := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
			ld := load(t, Config{URL: ts.URL + "/", Protocol: proto, RequestTimeout: time.Second,
				TLS: transport.TLS{Trust: transport.Trust{RootCAs: pool}}})
			if len(ld.Requests) != 8 || ld.Failed != 1 {
				t.Fatalf("%d requests, %d failed; want 8, 1 (the stalled one)", len(ld.Requests), ld.Failed)
			}
			for _, r := range ld.Requests {
				switch {
				case strings.HasPrefix(r.URL, ts.URL+"/slow"):
					if r.Failed() || r.BodyBytes != 150 {
						t.Errorf("%s: %d bytes, error %q; want 150 bytes, no error: slow is not stalled", r.URL, r.BodyBytes, r.Error)
					}
				case strings.HasSuffix(r.URL, "/stall.png"):
					if !strings.Contains(r.Error, "nothing of the response for 1s") || r.BodyBytes != 3 {
						t.Errorf("%s: %d bytes, error %q; want 3 bytes and a stall", r.URL, r.BodyBytes, r.Error)
					}
				}
			}
		})
	}
}

// TestRequestHeaders checks the headers a browser sends: Accept by kind,
// gzip and br, and over HTTP/2 the RFC 9218 urgency of the kind.
func TestRequestHeaders(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]http.Header{}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Clone()
		mu.Unlock()
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<link rel=stylesheet href=/c.css><script src=/s.js></script><img src=/i.png>`)
		}
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	pool := ts.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	load(t, Config{URL: ts.URL + "/", Protocol: HTTP2, TLS: transport.TLS{Trust: transport.Trust{RootCAs: pool}}, Header: http.Header{"X-Lab": {"1"}}})
	for path, want := range map[string][2]string{
		"/": {"text/html,", "u=0, i"}, "/c.css": {"text/css,", "u=0"}, "/s.js": {"*/*", "u=1"}, "/i.png": {"image/avif,", "u=3, i"},
	} {
		h := seen[path]
		if !strings.HasPrefix(h.Get("Accept"), want[0]) || h.Get("Priority") != want[1] || h.Get("Accept-Encoding") != "gzip, br" || h.Get("X-Lab") != "1" {
			t.Errorf("%s: Accept %q, Priority %q, Accept-Encoding %q, X-Lab %q; want %q..., %q, gzip, br, 1",
				path, h.Get("Accept"), h.Get("Priority"), h.Get("Accept-Encoding"), h.Get("X-Lab"), want[0], want[1])
		}
	}
}
