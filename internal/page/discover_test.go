package page

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func scan(t testing.TB, doc string) ([]Ref, *Facts, []Sheet) {
	t.Helper()
	var refs []Ref
	facts, sheets, err := ScanHTML(strings.NewReader(doc), mustURL(t, "https://a.test/dir/page.html"), 1<<20, func(r Ref) { refs = append(refs, r) })
	if err != nil {
		t.Fatalf("ScanHTML: %v", err)
	}
	return refs, facts, sheets
}

// TestScanHTML checks what the preload scanner finds, in document order,
// with its kind, and what it leaves alone.
func TestScanHTML(t *testing.T) {
	doc := `<!doctype html><html><head>
<link rel="stylesheet" href="main.css"><link rel="alternate stylesheet" href="alt.css">
<link rel="preload" as="font" href="/f.woff2" crossorigin><link rel="preload" as="fetch" href="/data.json">
<link rel="icon" href="/favicon.ico"><link rel="preconnect" href="https://cdn.test">
<script src="sync.js"></script><script async src="async.js"></script><script type="module" src="mod.js"></script>
<script type="text/template" src="tpl.js"></script><script nomodule src="old.js"></script><script>var x = "<img src=no.png>";</script>
<style>@import "imported.css"; .hero { background: url(bg.png) }</style>
</head><body class="x y" id="top">
<img src="a.png#frag"><img src="data:image/png;base64,AAAA"><img src="">
<img srcset="s-320.jpg 320w, s-1280.jpg 1280w, s-2560.jpg 2560w" src="s.jpg">
<picture><source srcset="p-1x.webp 1x, p-2x.webp 2x"><img src="p-fallback.jpg"></picture>
<picture><img src="only-img.jpg"></picture>
<video poster="poster.jpg"><source src="movie.mp4"></video>
<div style="background-image: url('inline.png'); font-family: 'Inline Font'"></div>
<template><img src="inert.png"></template><noscript><img src="noscript.png"></noscript>
<a href="next.html">next</a><iframe src="frame.html"></iframe>
<img src="//cdn.test/c.png"><img src="javascript:alert(1)"><img src="ftp://a.test/x.png">
</body></html>`
	refs, facts, sheets := scan(t, doc)
	want := []Ref{
		{"https://a.test/dir/main.css", KindStylesheet},
		{"https://a.test/f.woff2", KindFont},
		{"https://a.test/data.json", KindOther},
		{"https://a.test/favicon.ico", KindOther},
		{"https://a.test/dir/sync.js", KindScript},
		{"https://a.test/dir/async.js", KindOther},
		{"https://a.test/dir/mod.js", KindOther},
		{"https://a.test/dir/imported.css", KindStylesheet},
		{"https://a.test/dir/a.png", KindImage},
		{"https://a.test/dir/s-1280.jpg", KindImage},
		{"https://a.test/dir/p-1x.webp", KindImage},
		{"https://a.test/dir/only-img.jpg", KindImage},
		{"https://a.test/dir/poster.jpg", KindImage},
		{"https://a.test/dir/inline.png", KindImage},
		{"https://cdn.test/c.png", KindImage},
	}
	if diff := cmp.Diff(want, refs); diff != "" {
		t.Errorf("ScanHTML refs (-want +got):\n%s", diff)
	}
	if !facts.Classes["x"] || !facts.Classes["y"] || !facts.IDs["top"] || !facts.Tags["video"] || !facts.Families["inline font"] {
		t.Errorf("facts = %+v; want classes x y, id top, tag video, family 'inline font'", facts)
	}
	if len(sheets) != 1 || len(sheets[0].Rules) != 1 || sheets[0].Rules[0].URLs[0] != "https://a.test/dir/bg.png" {
		t.Errorf("inline sheets = %+v; want one rule naming bg.png", sheets)
	}
}

// TestScanHTMLBase checks that <base href> sets the base of later URLs.
func TestScanHTMLBase(t *testing.T) {
	refs, _, _ := scan(t, `<base href="https://cdn.test/assets/"><base href="/ignored/"><img src="a.png">`)
	if len(refs) != 1 || refs[0].URL != "https://cdn.test/assets/a.png" {
		t.Errorf("refs = %v; want https://cdn.test/assets/a.png", refs)
	}
}

// TestScanHTMLTooLarge checks the bound on the bytes read of a document.
func TestScanHTMLTooLarge(t *testing.T) {
	doc := strings.Repeat("<p>filler</p>", 1000) + `<img src="late.png">`
	var refs []Ref
	_, _, err := ScanHTML(strings.NewReader(doc), mustURL(t, "http://a.test/"), 100, func(r Ref) { refs = append(refs, r) })
	if err == nil || !strings.Contains(err.Error(), "larger than") || len(refs) != 0 {
		t.Errorf("ScanHTML of %d bytes with a limit of 100 = %v, %v; want ErrTooLarge and no ref", len(doc), refs, err)
	}
}

// TestParseCSS checks imports, font faces and the rules that matter.
func TestParseCSS(t *testing.T) {
	css := `@charset "utf-8";
@import url("a.css"); @import 'b.css' screen;
@font-face { font-family: "Lab Sans"; src: local(Lab), url(/f.woff2) format("woff2"), url(f.woff); }
@font-face { font-family: NoSrc; }
@media (min-width: 1px) { .hero:hover, #c::before { background: #223 url("h.jpg") no-repeat; font: italic 12px/1.5 "Lab Sans", serif } }
body { font-family: Lab Mono, sans-serif; margin: 0 }
p { color: red }
x { background: url(before-error.png) }
@import "late.css";
bad { ( ; } y { background: url(after-error.png) }`
	s := ParseCSS([]byte(css), mustURL(t, "https://a.test/css/main.css"))
	if want := []string{"https://a.test/css/a.css", "https://a.test/css/b.css"}; !slices.Equal(s.Imports, want) {
		t.Errorf("imports = %v; want %v", s.Imports, want)
	}
	if want := []FontFace{{"lab sans", "https://a.test/f.woff2"}}; !slices.Equal(s.Fonts, want) {
		t.Errorf("fonts = %v; want %v", s.Fonts, want)
	}
	var urls, fams []string
	for _, r := range s.Rules {
		urls = append(urls, r.URLs...)
		fams = append(fams, r.Families...)
	}
	if want := []string{"https://a.test/css/h.jpg", "https://a.test/css/before-error.png"}; !slices.Equal(urls, want) {
		t.Errorf("rule URLs = %v; want %v", urls, want)
	}
	if want := []string{"lab sans", "serif", "lab mono", "sans-serif"}; !slices.Equal(fams, want) {
		t.Errorf("rule families = %v; want %v", fams, want)
	}
	if !s.Rules[0].Selectors[0].Never || s.Rules[0].Selectors[1].Never || s.Rules[0].Selectors[1].IDs[0] != "c" {
		t.Errorf("selectors = %+v; want .hero:hover never, #c::before matching", s.Rules[0].Selectors)
	}
}

// TestNeeded checks which fonts and backgrounds a page uses: the styled
// test page's rule, selector match on types, ids and classes anywhere on
// the page, fonts of the families that matching rules set.
func TestNeeded(t *testing.T) {
	base := mustURL(t, "https://a.test/")
	sheet := ParseCSS([]byte(`
@font-face { font-family: "Used"; src: url(used.woff2); }
@font-face { font-family: "Unused"; src: url(unused.woff2); }
@font-face { font-family: "Inline"; src: url(inline.woff2); }
body { font-family: Used, serif }
.hero { background: url(hero.jpg) }
.side { background: url(side.jpg); font-family: Unused }
footer .logo { background: url(logo.png) }
div#banner.wide { background: url(banner.png) }
a:hover { background: url(hover.png) }
* { cursor: url(cursor.png), auto }`), base)
	_, facts, _ := scan(t, `<body><div class="hero wide" id="banner"></div><p style="font-family: Inline">x</p><footer></footer></body>`)
	var got []string
	for _, r := range Needed([]Sheet{sheet}, facts) {
		got = append(got, r.Kind.String()+" "+strings.TrimPrefix(r.URL, "https://a.test/"))
	}
	want := []string{"image hero.jpg", "image banner.png", "image cursor.png", "font used.woff2", "font inline.woff2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Needed (-want +got):\n%s", diff)
	}
}

// TestChooseSrcset checks the candidate chosen for a 1280 px viewport at 1x.
func TestChooseSrcset(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a.jpg 1x, b.jpg 2x", "a.jpg"},
		{"b.jpg 2x, a.jpg", "a.jpg"},
		{"b.jpg 2x, c.jpg 3x", "b.jpg"},
		{"s.jpg 320w, m.jpg 1280w, l.jpg 2560w", "m.jpg"},
		{"s.jpg 320w, m.jpg 640w", "m.jpg"},
		{"a,b.jpg 1x", "a,b.jpg"},
		{"a.jpg,b.jpg 2x", "a.jpg,b.jpg"}, // a comma inside a URL belongs to it
		{"bad.jpg 0x, worse.jpg -3w, ok.jpg 1.5x", "ok.jpg"},
		{"", ""},
		{" , ,", ""},
	}
	for _, tt := range tests {
		if got := chooseSrcset(tt.in); got != tt.want {
			t.Errorf("chooseSrcset(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
