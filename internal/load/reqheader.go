package load

import (
	"maps"
	"net/http"
	"slices"
	"strings"
)

// headerField is one request header field, its name in the canonical
// HTTP/1.1 spelling (HTTP/2 and HTTP/3 send it in lower case).
type headerField struct {
	name, value string
}

// Default request fields, sent unless the user names the field: with a
// value to replace it, or with none (-H 'Accept:') to leave it out.
var defaultFields = []headerField{{"Accept", "*/*"}, {"User-Agent", "httpslab"}}

// droppedFields are the fields a user may give that no request carries
// as given: the host goes in each protocol's own place (the Host line,
// :authority, req.Host), Content-Length is the body's, and the
// connection-specific fields are the client's to manage, and forbidden
// in HTTP/2 and HTTP/3 (RFC 9113, section 8.2.2).
var droppedFields = []string{"Host", "Content-Length", "Connection", "Keep-Alive", "Proxy-Connection",
	"Transfer-Encoding", "Upgrade"}

// requestHeader returns the header fields that a target's requests carry,
// the same on HTTP/1.1, HTTP/2 (both clients) and HTTP/3: the user's
// fields and the defaults, sorted by name, a field's values in the order
// given. Each protocol adds the host and the body's length its own way.
func requestHeader(t Target) []headerField {
	h := http.Header{}
	for k, vs := range t.Header {
		k = http.CanonicalHeaderKey(k)
		h[k] = append(h[k], vs...)
	}
	for _, f := range defaultFields {
		if _, ok := h[f.name]; !ok {
			h[f.name] = []string{f.value}
		}
	}
	for _, k := range droppedFields {
		delete(h, k)
	}
	var out []headerField
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, headerField{k, v})
		}
	}
	return out
}

// lowerName is a field's name as HTTP/2 and HTTP/3 send it.
func (f headerField) lowerName() string { return strings.ToLower(f.name) }
