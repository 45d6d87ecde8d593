package page

import (
	"strings"

	"github.com/tdewolff/parse/v2/css"
)

// userAction are the pseudo-classes that match only after something the
// user does, which a page load never does.
var userAction = map[string]bool{
	"hover": true, "active": true, "focus": true, "focus-within": true,
	"focus-visible": true, "visited": true, "target": true, "checked": true,
}

// selectors reads a selector list into the last compound of each
// selector: the rule's element itself, as a browser matches from the
// right. Attribute selectors and other pseudo-classes are ignored.
func selectors(vals []css.Token) []Compound {
	var out []Compound
	var cur Compound
	for i := 0; i < len(vals); i++ {
		v := vals[i]
		switch v.TokenType {
		case css.CommaToken:
			out = append(out, cur)
			cur = Compound{}
		case css.WhitespaceToken:
			cur = Compound{Never: cur.Never}
		case css.DelimToken:
			switch string(v.Data) {
			case ">", "+", "~":
				cur = Compound{Never: cur.Never}
			case ".":
				if i+1 < len(vals) && vals[i+1].TokenType == css.IdentToken {
					cur.Classes = append(cur.Classes, string(vals[i+1].Data))
					i++
				}
			}
		case css.HashToken:
			cur.IDs = append(cur.IDs, strings.TrimPrefix(string(v.Data), "#"))
		case css.IdentToken:
			if cur.Tag == "" && len(cur.IDs) == 0 && len(cur.Classes) == 0 {
				cur.Tag = strings.ToLower(string(v.Data))
			}
		case css.ColonToken:
			i = pseudo(vals, i, &cur)
		case css.LeftBracketToken:
			i = skipTo(vals, i, css.RightBracketToken)
		}
	}
	return append(out, cur)
}

// pseudo reads the pseudo-class or pseudo-element at vals[i], a colon,
// and returns the index of its last token.
func pseudo(vals []css.Token, i int, cur *Compound) int {
	if i+1 < len(vals) && vals[i+1].TokenType == css.ColonToken {
		i++ // ::before and other pseudo-elements apply to the element
	}
	if i+1 >= len(vals) {
		return i
	}
	next := vals[i+1]
	switch next.TokenType {
	case css.IdentToken:
		if userAction[strings.ToLower(string(next.Data))] {
			cur.Never = true
		}
		return i + 1
	case css.FunctionToken: // :not(...), :is(...): read as matching
		return skipTo(vals, i+1, css.RightParenthesisToken)
	}
	return i
}

// skipTo returns the index of the first token of type tt after i (the
// last index when there is none).
func skipTo(vals []css.Token, i int, tt css.TokenType) int {
	for i++; i < len(vals); i++ {
		if vals[i].TokenType == tt {
			return i
		}
	}
	return len(vals) - 1
}

// Facts are the element types, ids and classes that occur on a page, and
// the font families its style attributes set.
type Facts struct {
	Tags, IDs, Classes map[string]bool
	Families           map[string]bool
}

// newFacts returns the facts of an empty page: a browser's parser makes
// html, head and body elements even when the document leaves out their tags.
func newFacts() *Facts {
	tags := map[string]bool{"html": true, "head": true, "body": true}
	return &Facts{Tags: tags, IDs: map[string]bool{}, Classes: map[string]bool{}, Families: map[string]bool{}}
}

// matches reports whether the page can have an element the compound
// selects. The rule is deliberately simple, without a DOM: every type,
// id and class the compound names occurs somewhere on the page (not
// necessarily on one element), and no user action is needed.
func (f *Facts) matches(c Compound) bool {
	if c.Never || (c.Tag != "" && c.Tag != "*" && !f.Tags[c.Tag]) {
		return false
	}
	for _, id := range c.IDs {
		if !f.IDs[id] {
			return false
		}
	}
	for _, cl := range c.Classes {
		if !f.Classes[cl] {
			return false
		}
	}
	return true
}

// Needed returns the fonts and images that the stylesheets make the page
// fetch, given what is on it: the URLs of every rule with a matching
// selector, and the fonts of the families that such rules, or the page's
// style attributes, set.
func Needed(sheets []Sheet, f *Facts) []Ref {
	used := map[string]bool{}
	for fam := range f.Families {
		used[fam] = true
	}
	var out []Ref
	for _, s := range sheets {
		for _, r := range s.Rules {
			if !anyMatch(f, r.Selectors) {
				continue
			}
			for _, u := range r.URLs {
				out = append(out, Ref{URL: u, Kind: KindImage})
			}
			for _, fam := range r.Families {
				used[fam] = true
			}
		}
	}
	for _, s := range sheets {
		for _, ff := range s.Fonts {
			if used[ff.Family] {
				out = append(out, Ref{URL: ff.URL, Kind: KindFont})
			}
		}
	}
	return out
}

func anyMatch(f *Facts, cs []Compound) bool {
	for _, c := range cs {
		if f.matches(c) {
			return true
		}
	}
	return false
}
