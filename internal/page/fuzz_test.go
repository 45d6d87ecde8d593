package page

import (
	"net/url"
	"strings"
	"testing"
)

// checkRef fails t unless r is something a load may fetch: an absolute
// http or https URL with a host, no fragment, of bounded length, and a
// known kind.
func checkRef(t *testing.T, r Ref) {
	t.Helper()
	u, err := url.Parse(r.URL)
	switch {
	case err != nil:
		t.Fatalf("ref %q does not parse: %v", r.URL, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Fragment != "":
		t.Fatalf("ref %q: want an absolute http(s) URL with a host and no fragment", r.URL)
	case len(r.URL) > 3*maxURLBytes:
		t.Fatalf("ref of %d bytes; discovery skips URLs over %d", len(r.URL), maxURLBytes)
	case r.Kind < KindDocument || r.Kind > KindOther || r.Kind.String() == "unknown":
		t.Fatalf("ref %q of kind %d", r.URL, r.Kind)
	}
}

// FuzzDiscovery feeds arbitrary HTML and CSS to the discovery: it never
// panics or loops, reads no more than its limit, and finds only URLs a
// load may fetch.
func FuzzDiscovery(f *testing.F) {
	f.Add(`<link rel=stylesheet href=a.css><img srcset="a.png 1x, b.png 2x"><script src=s.js></script>`, `@import "b.css"; .x { background: url(x.png) }`)
	f.Add(`<picture><source srcset=",,, ,a 9w"><img src=b></picture><base href="//evil.test/">`, `@font-face{font-family:a;src:url(f)}body{font:1px a}`)
	f.Add(`<div style="background:url(&quot;q.png&quot;)" class="a b"><style>@import url(i.css)</style>`, `a{b:url(`)
	f.Add(`<template><img src=x></template><video poster=p.jpg>`, `@media{@media{.a{background:url(https://x.test/a)}}}`)
	f.Add(strings.Repeat("<img src=a", 100), strings.Repeat("{", 1000))
	base, _ := url.Parse("https://page.test/dir/index.html")
	f.Fuzz(func(t *testing.T, doc, css string) {
		n := 0
		facts, sheets, err := ScanHTML(strings.NewReader(doc), base, 1<<16, func(r Ref) { n++; checkRef(t, r) })
		if err != nil && len(doc) <= 1<<16 {
			t.Fatalf("ScanHTML of %d bytes: %v", len(doc), err)
		}
		if n > len(doc) {
			t.Fatalf("%d refs from %d bytes", n, len(doc))
		}
		sheet := ParseCSS([]byte(css), base)
		for _, u := range sheet.Imports {
			checkRef(t, Ref{URL: u, Kind: KindStylesheet})
		}
		for _, r := range Needed(append(sheets, sheet), facts) {
			checkRef(t, r)
		}
		urls, _ := Declarations([]byte(css), base)
		for _, u := range urls {
			checkRef(t, Ref{URL: u, Kind: KindImage})
		}
	})
}
