package page

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// FuzzLoad loads arbitrary pages and stylesheets end to end, offline:
// every connection, whatever host the page names, is routed to one
// loopback server (--connect-to with any host and port), which serves
// the fuzzed document at / and the fuzzed stylesheet at every *.css. The
// load must end within its timeout, stay within its resource limit, and
// request only what discovery finds in the document and the stylesheet
// (checked against an independent run of the discovery on both).
func FuzzLoad(f *testing.F) {
	f.Add(`<link rel=stylesheet href=a.css><img src=//cdn.test/x.png><script src="https://other.test:8443/s.js"></script>`,
		`@import "b.css"; body { font-family: F } @font-face { font-family: F; src: url(//fonts.test/f.woff2) } body { background: url(bg.png) }`)
	f.Add(`<base href="http://elsewhere.test/"><img srcset="a.png 1x, b.png 2x"><link rel=stylesheet href=/deep.css>`, `@import url(deep.css);`)
	f.Add(`<img src="http://[::1]:1/x"><img src="http://127.0.0.1:0/y"><img src="ftp://x/">`, ``)
	var doc, sheet atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/":
			w.Write([]byte(doc.Load().(string)))
		case strings.HasSuffix(r.URL.Path, ".css"):
			w.Write([]byte(sheet.Load().(string)))
		default:
			w.Write([]byte("x"))
		}
	}))
	defer srv.Close()
	port, _ := strconv.Atoi(srv.URL[strings.LastIndexByte(srv.URL, ':')+1:])
	everywhere := transport.Routes{ConnectTo: []transport.ConnectTo{{ToHost: "127.0.0.1", ToPort: port}}}
	f.Fuzz(func(t *testing.T, d, css string) {
		doc.Store(d)
		sheet.Store(css)
		cfg := Config{URL: "http://page.test/", Protocol: HTTP, Dialer: &transport.Dialer{Routes: everywhere},
			MaxResources: 50, RequestTimeout: time.Second, LoadTimeout: 3 * time.Second}
		start := time.Now()
		ld, err := Run(context.Background(), cfg)
		if ld == nil || time.Since(start) > 5*time.Second {
			t.Fatalf("load of %q: %v after %v", d, err, time.Since(start))
		}
		if len(ld.Requests) > cfg.MaxResources {
			t.Fatalf("%d requests; the limit is %d", len(ld.Requests), cfg.MaxResources)
		}
		named := namedURLs(t, d, css)
		for _, r := range ld.Requests[1:] {
			if !named[r.URL] {
				t.Fatalf("request %s: the page and its stylesheet do not name it", r.URL)
			}
		}
	})
}

// namedURLs runs the discovery on the document and, for every
// stylesheet URL it could reach, the stylesheet: every URL a load of
// them may request.
func namedURLs(t *testing.T, doc, css string) map[string]bool {
	base, _ := url.Parse("http://page.test/")
	named := map[string]bool{}
	facts, sheets, _ := ScanHTML(strings.NewReader(doc), base, DefaultMaxParseBytes, func(r Ref) { named[r.URL] = true })
	var cssURLs []string
	for u := range named {
		if strings.Contains(u, ".css") {
			cssURLs = append(cssURLs, u)
		}
	}
	for _, s := range sheets {
		for _, u := range s.Imports {
			named[u] = true
			cssURLs = append(cssURLs, u)
		}
	}
	// Every fetched stylesheet is the same text; its relative URLs
	// resolve against each stylesheet's own URL, level by level of
	// @import as deep as a load follows them.
	for depth := 0; depth <= DefaultMaxCSSDepth+1 && len(cssURLs) > 0; depth++ {
		var next []string
		for _, c := range cssURLs {
			u, err := url.Parse(c)
			if err != nil {
				continue
			}
			s := ParseCSS([]byte(css), u)
			for _, imp := range s.Imports {
				if !named[imp] {
					named[imp] = true
					next = append(next, imp)
				}
			}
			sheets = append(sheets, s)
		}
		cssURLs = next
	}
	for _, r := range Needed(sheets, facts) {
		named[r.URL] = true
	}
	return named
}
