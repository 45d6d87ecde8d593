// Package page loads a web page as a browser's network stack would,
// without running JavaScript or laying anything out: it fetches the
// document, discovers its sub-resources while the document streams in
// (the HTML tokenizer of golang.org/x/net/html, as a browser's preload
// scanner), follows the stylesheets it finds to their imports, fonts and
// background images, and fetches everything with a browser's connection
// limits and priorities over HTTP/1.1, HTTP/2 or HTTP/3. Every request is
// timed phase by phase on monotonic timestamps; the loads of several
// protocols are interleaved and compared by package compare.
package page

import (
	"fmt"
	"net/url"
	"strings"
)

// Kind is what a resource is for the page, which sets its priority.
type Kind int

// Kinds, in the order a browser fetches them when they compete (RFC 9218
// urgencies as Chromium assigns them: the document and CSS highest,
// blocking scripts next, then fonts, then images and the rest).
const (
	KindDocument Kind = iota
	KindStylesheet
	KindScript // a synchronous (parser-blocking) script
	KindFont
	KindImage
	KindOther // async, deferred and module scripts, icons, other preloads
)

var kindNames = [...]string{"document", "stylesheet", "script", "font", "image", "other"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// MarshalText writes the kind by name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind by name, so that a report reads back what
// page --json wrote.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, name := range kindNames {
		if name == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown resource kind %q", b)
}

// Ref is a sub-resource the discovery found: an absolute http or https
// URL without fragment, and what it is.
type Ref struct {
	URL  string
	Kind Kind
}

// maxURLBytes bounds a discovered URL: longer ones are no real
// resource reference and are skipped.
const maxURLBytes = 8 << 10

// resolve makes raw, as written in a page or a stylesheet, an absolute
// URL against base; false when it names nothing to fetch (empty, data:,
// javascript:, another scheme, too long, unparsable).
func resolve(base *url.URL, raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxURLBytes || strings.HasPrefix(raw, "#") {
		return "", false
	}
	u, err := base.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), true
}
