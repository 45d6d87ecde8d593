package page

import (
	"bytes"
	"io"
	"net/url"
	"strings"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// Sheet is what a stylesheet can make a browser fetch: the stylesheets
// it imports, its web fonts, and its rules that name images (backgrounds,
// list markers, borders) or set a font family. URLs are absolute.
type Sheet struct {
	Imports []string
	Fonts   []FontFace
	Rules   []Rule
}

// FontFace is an @font-face rule: a family and the first URL of its src,
// the one a browser that supports its format fetches.
type FontFace struct {
	Family string // lower case
	URL    string
}

// Rule is a style rule that names images or sets font families.
type Rule struct {
	Selectors []Compound
	URLs      []string
	Families  []string // lower case
}

// Compound is the last compound selector of a selector, the part that
// names the element itself: its type, ids and classes. Never is set for
// a selector that applies only on a user's action (:hover, :focus, ...),
// which a page load does not perform.
type Compound struct {
	Tag     string
	IDs     []string
	Classes []string
	Never   bool
}

// ParseCSS reads a stylesheet whose URL is base. A parse error ends the
// sheet where it occurs (the parser's recovery skips the rest): what
// came before is kept, a browser would also read some of what follows.
func ParseCSS(data []byte, base *url.URL) Sheet {
	var s Sheet
	var st cssState
	p := css.NewParser(parse.NewInputBytes(data), false)
	// Each grammar unit consumes input, so the loop is bounded by the
	// input's length; the bound is kept explicit all the same.
	for range len(data) + 16 {
		gt, _, d := p.Next()
		if gt == css.ErrorGrammar && p.Err() == io.EOF {
			break
		}
		st.step(&s, base, gt, d, p.Values())
	}
	return s
}

// cssState is where ParseCSS is in the stylesheet.
type cssState struct {
	atRules []string  // the at-rules the parser is inside, innermost last
	face    *FontFace // inside an @font-face
	rule    *Rule     // inside a style rule
	noMore  bool      // a rule came: later @imports are ignored, as browsers do
}

func (st *cssState) step(s *Sheet, base *url.URL, gt css.GrammarType, d []byte, vals []css.Token) {
	switch gt {
	case css.AtRuleGrammar:
		st.atRule(s, base, strings.ToLower(string(d)), vals)
	case css.BeginAtRuleGrammar:
		name := strings.ToLower(string(d))
		st.atRules = append(st.atRules, name)
		st.noMore = true
		if name == "@font-face" {
			st.face = &FontFace{}
		}
	case css.EndAtRuleGrammar:
		if n := len(st.atRules); n > 0 {
			if st.atRules[n-1] == "@font-face" && st.face != nil && st.face.Family != "" && st.face.URL != "" {
				s.Fonts = append(s.Fonts, *st.face)
			}
			st.atRules = st.atRules[:n-1]
		}
		st.face = nil
	case css.BeginRulesetGrammar:
		st.noMore = true
		st.rule = &Rule{Selectors: selectors(vals)}
	case css.EndRulesetGrammar:
		if r := st.rule; r != nil && (len(r.URLs) > 0 || len(r.Families) > 0) {
			s.Rules = append(s.Rules, *r)
		}
		st.rule = nil
	case css.DeclarationGrammar:
		st.declaration(base, strings.ToLower(string(d)), vals)
	}
}

// atRule handles a statement at-rule: @import, which must come before
// every rule (@charset and @layer statements may come first).
func (st *cssState) atRule(s *Sheet, base *url.URL, name string, vals []css.Token) {
	switch name {
	case "@import":
		if st.noMore || len(st.atRules) > 0 {
			return
		}
		for _, v := range vals {
			raw, ok := urlOf(v)
			if !ok && v.TokenType == css.StringToken {
				raw, ok = unquote(v.Data), true
			}
			if ok {
				if u, ok := resolve(base, raw); ok {
					s.Imports = append(s.Imports, u)
				}
				return
			}
		}
	case "@charset", "@layer":
	default:
		st.noMore = true
	}
}

// declaration records what one declaration names: a font face's family
// and source, or a rule's images and font families.
func (st *cssState) declaration(base *url.URL, prop string, vals []css.Token) {
	switch {
	case st.face != nil && prop == "font-family":
		if fams := families(vals, false); len(fams) > 0 {
			st.face.Family = fams[0]
		}
	case st.face != nil && prop == "src":
		if urls := urls(base, vals); len(urls) > 0 && st.face.URL == "" {
			st.face.URL = urls[0]
		}
	case st.rule != nil:
		st.rule.URLs = append(st.rule.URLs, urls(base, vals)...)
		if prop == "font-family" || prop == "font" {
			st.rule.Families = append(st.rule.Families, families(vals, prop == "font")...)
		}
	}
}

// Declarations reads an inline style attribute: the images it names and
// the font families it sets, which apply to the page as they stand.
func Declarations(data []byte, base *url.URL) (urlsOut, fams []string) {
	p := css.NewParser(parse.NewInputBytes(data), true)
	for range len(data) + 16 {
		gt, _, d := p.Next()
		if gt == css.ErrorGrammar && p.Err() == io.EOF {
			break
		}
		if gt != css.DeclarationGrammar {
			continue
		}
		prop := strings.ToLower(string(d))
		urlsOut = append(urlsOut, urls(base, p.Values())...)
		if prop == "font-family" || prop == "font" {
			fams = append(fams, families(p.Values(), prop == "font")...)
		}
	}
	return urlsOut, fams
}

// urlOf returns the address of a url() token.
func urlOf(t css.Token) (string, bool) {
	if t.TokenType != css.URLToken {
		return "", false
	}
	d := t.Data
	if len(d) < 5 || !bytes.EqualFold(d[:4], []byte("url(")) {
		return "", false
	}
	d = bytes.TrimSuffix(d[4:], []byte(")"))
	return unquote(bytes.TrimSpace(d)), true
}

// urls returns the absolute URLs of the url() tokens among vals, and of
// the quoted string after a url( function token.
func urls(base *url.URL, vals []css.Token) []string {
	var out []string
	for i, v := range vals {
		raw, ok := urlOf(v)
		if !ok && v.TokenType == css.FunctionToken && strings.EqualFold(string(v.Data), "url(") &&
			i+1 < len(vals) && vals[i+1].TokenType == css.StringToken {
			raw, ok = unquote(vals[i+1].Data), true
		}
		if !ok {
			continue
		}
		if u, ok := resolve(base, raw); ok {
			out = append(out, u)
		}
	}
	return out
}

// unquote strips the quotes of a CSS string.
func unquote(b []byte) string {
	s := string(b)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return strings.Trim(s, `"'`)
}

// families reads a font-family list (or the family part of a font
// shorthand, after the size): comma-separated names, quoted or as
// identifiers, in lower case.
func families(vals []css.Token, shorthand bool) []string {
	var out []string
	var name []string
	flush := func() {
		if len(name) > 0 {
			out = append(out, strings.ToLower(strings.Join(name, " ")))
		}
		name = nil
	}
	for _, v := range vals {
		switch v.TokenType {
		case css.CommaToken:
			flush()
		case css.StringToken:
			name = append(name, unquote(v.Data))
		case css.IdentToken:
			name = append(name, string(v.Data))
		case css.DimensionToken, css.NumberToken, css.PercentageToken, css.DelimToken:
			if shorthand { // style, weight and size come before the family
				name = nil
			}
		}
	}
	flush()
	return out
}
