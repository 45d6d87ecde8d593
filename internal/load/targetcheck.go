package load

import (
	"fmt"
	"net/url"
	"strconv"

	"golang.org/x/net/http/httpguts"
)

// checkRequest refuses a method or header that would not survive on the
// wire as one field: the HTTP/1.1 client writes them verbatim, so a CR or
// LF in a value would end the field early and smuggle another one in, and
// a space in a method would shift the request line.
func checkRequest(t Target) error {
	if t.Method != "" && !httpguts.ValidHeaderFieldName(t.Method) {
		return fmt.Errorf("request method %q: want a token such as GET or POST, with no spaces or control characters", t.Method)
	}
	for name, values := range t.Header {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("header name %q: want a token, with no spaces, colons or control characters", name)
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("header %s value %q: control characters (CR, LF) are not allowed", name, v)
			}
		}
	}
	return nil
}

// checkURL refuses what a target URL may hold but a run cannot honour:
// a port out of range (or 0, which no server listens on), and user
// credentials, which the clients do not send: a run that silently left
// them out would measure 401s without saying why.
func checkURL(raw string, u *url.URL) error {
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("target URL %q: port %q: want 1 to 65535", raw, p)
		}
	}
	if u.User != nil {
		return fmt.Errorf("target URL %q: credentials in the URL are not sent; give them as a header, -H 'Authorization: Basic ...'", raw)
	}
	return nil
}
