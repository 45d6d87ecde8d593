package page

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// ErrTooLarge is wrapped by the error of a document or stylesheet that
// is longer than the bytes discovery reads of it.
var ErrTooLarge = errors.New("larger than the discovery reads")

// htmlScanner is the state of ScanHTML.
type htmlScanner struct {
	base     *url.URL
	baseSet  bool // a <base href> was taken: later ones are ignored
	emit     func(Ref)
	facts    *Facts
	sheets   []Sheet
	inStyle  bool
	style    []byte
	picture  bool // inside a <picture>
	chosen   bool // its <source> or <img> was chosen
	template int  // depth of <template>, whose content is inert
}

// ScanHTML reads the HTML document r, whose URL is base, as a browser's
// preload scanner does: each resource is passed to emit as soon as its
// tag is read, in document order, so that fetching can start while the
// document still streams in. It reads at most maxBytes bytes and returns
// the facts of the page (for the stylesheets' rules) and the stylesheets
// of its <style> elements.
func ScanHTML(r io.Reader, base *url.URL, maxBytes int64, emit func(Ref)) (*Facts, []Sheet, error) {
	s := &htmlScanner{base: base, emit: emit, facts: newFacts()}
	lr := &io.LimitedReader{R: r, N: maxBytes + 1}
	z := html.NewTokenizer(lr)
	for {
		switch z.Next() {
		case html.ErrorToken:
			err := z.Err()
			switch {
			case lr.N <= 0:
				return s.facts, s.sheets, fmt.Errorf("document: %w (%d bytes)", ErrTooLarge, maxBytes)
			case err == io.EOF:
				return s.facts, s.sheets, nil
			}
			return s.facts, s.sheets, err
		case html.StartTagToken, html.SelfClosingTagToken:
			s.start(z)
		case html.EndTagToken:
			s.end(z)
		case html.TextToken:
			if s.inStyle {
				s.style = append(s.style, z.Text()...)
			}
		}
	}
}

// attrs reads the attributes of the current tag, names in lower case;
// the first of a repeated attribute wins, as in a browser.
func attrs(z *html.Tokenizer) map[string]string {
	a := map[string]string{}
	for more := true; more; {
		var k, v []byte
		k, v, more = z.TagAttr()
		if _, seen := a[string(k)]; !seen {
			a[string(k)] = string(v)
		}
	}
	return a
}

func (s *htmlScanner) start(z *html.Tokenizer) {
	name, hasAttr := z.TagName()
	tag := string(name)
	a := map[string]string{}
	if hasAttr {
		a = attrs(z)
	}
	if tag == "template" {
		s.template++
	}
	if s.template > 0 {
		return
	}
	s.record(tag, a)
	switch tag {
	case "base":
		s.setBase(a)
	case "link":
		s.link(a)
	case "script":
		s.script(a)
	case "style":
		s.inStyle, s.style = true, s.style[:0]
	case "picture":
		s.picture, s.chosen = true, false
	case "source":
		if s.picture && !s.chosen && a["srcset"] != "" {
			s.chosen = s.add(chooseSrcset(a["srcset"]), KindImage)
		}
	case "img":
		if !(s.picture && s.chosen) {
			src := a["src"]
			if a["srcset"] != "" {
				src = chooseSrcset(a["srcset"])
			}
			s.chosen = s.add(src, KindImage)
		}
	case "video":
		s.add(a["poster"], KindImage)
	case "input":
		if strings.EqualFold(a["type"], "image") {
			s.add(a["src"], KindImage)
		}
	}
}

func (s *htmlScanner) end(z *html.Tokenizer) {
	name, _ := z.TagName()
	switch string(name) {
	case "template":
		s.template = max(s.template-1, 0)
	case "picture":
		s.picture = false
	case "style":
		if s.inStyle && s.template == 0 {
			sheet := ParseCSS(s.style, s.base)
			for _, u := range sheet.Imports {
				s.emit(Ref{URL: u, Kind: KindStylesheet})
			}
			s.sheets = append(s.sheets, sheet)
		}
		s.inStyle = false
	}
}

// record adds the element's type, id and classes to the page's facts,
// and fetches what its style attribute names.
func (s *htmlScanner) record(tag string, a map[string]string) {
	s.facts.Tags[tag] = true
	if id := a["id"]; id != "" {
		s.facts.IDs[id] = true
	}
	for _, c := range strings.Fields(a["class"]) {
		s.facts.Classes[c] = true
	}
	if st, ok := a["style"]; ok && st != "" {
		urls, fams := Declarations([]byte(st), s.base)
		for _, u := range urls {
			s.emit(Ref{URL: u, Kind: KindImage})
		}
		for _, f := range fams {
			s.facts.Families[f] = true
		}
	}
}

// add emits raw resolved against the base; false when it names nothing.
func (s *htmlScanner) add(raw string, k Kind) bool {
	u, ok := resolve(s.base, raw)
	if ok {
		s.emit(Ref{URL: u, Kind: k})
	}
	return ok
}

func (s *htmlScanner) setBase(a map[string]string) {
	href, ok := a["href"]
	if s.baseSet || !ok {
		return
	}
	if u, err := s.base.Parse(strings.TrimSpace(href)); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		s.base, s.baseSet = u, true
	}
}

// preloadKinds maps <link rel=preload as=...> to the kind fetched.
var preloadKinds = map[string]Kind{"style": KindStylesheet, "script": KindScript, "font": KindFont, "image": KindImage}

func (s *htmlScanner) link(a map[string]string) {
	rels := strings.Fields(strings.ToLower(a["rel"]))
	has := func(r string) bool {
		for _, x := range rels {
			if x == r {
				return true
			}
		}
		return false
	}
	switch {
	case has("stylesheet") && !has("alternate"):
		s.add(a["href"], KindStylesheet)
	case has("preload"):
		k, ok := preloadKinds[strings.ToLower(a["as"])]
		if !ok {
			k = KindOther
		}
		s.add(a["href"], k)
	case has("modulepreload"), has("icon"):
		s.add(a["href"], KindOther)
	}
}

// script fetches a classic or module script: a parser-blocking one at
// script priority, an async, deferred or module one after the images.
// Scripts of other types (templates, JSON) and nomodule ones, which a
// browser that runs modules skips, are not fetched.
func (s *htmlScanner) script(a map[string]string) {
	if _, ok := a["src"]; !ok {
		return
	}
	if _, ok := a["nomodule"]; ok {
		return
	}
	typ := strings.ToLower(strings.TrimSpace(a["type"]))
	_, async := a["async"]
	_, deferred := a["defer"]
	switch {
	case typ == "module" || ((typ == "" || strings.HasSuffix(typ, "javascript") || typ == "text/ecmascript") && (async || deferred)):
		s.add(a["src"], KindOther)
	case typ == "" || strings.HasSuffix(typ, "javascript") || typ == "text/ecmascript":
		s.add(a["src"], KindScript)
	}
}
