package transport

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// CurlHeaders are the request fields curl sets from options of their own
// rather than -H: -A (User-Agent), -e (Referer), --compressed
// (Accept-Encoding) and -u user:password (Basic authorization).
type CurlHeaders struct {
	UserAgent, Referer string
	Compressed         bool
	User               string // user:password
}

// curlAcceptEncoding is what curl's --compressed asks for. The body is
// not decoded (probe keeps none): its sizes are the bytes received, as
// curl's size_download counts them.
const curlAcceptEncoding = "deflate, gzip, br, zstd"

// Apply sets the fields in h, each only where -H did not set it: a -H
// field wins, as in curl.
func (c CurlHeaders) Apply(h http.Header) {
	encoding := ""
	if c.Compressed {
		encoding = curlAcceptEncoding
	}
	for name, v := range map[string]string{"User-Agent": c.UserAgent, "Referer": c.Referer, "Accept-Encoding": encoding} {
		if _, set := h[name]; !set && v != "" {
			h[name] = []string{v}
		}
	}
	if _, set := h["Authorization"]; !set && c.User != "" {
		name, pw, _ := strings.Cut(c.User, ":")
		h.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(name+":"+pw)))
	}
}
