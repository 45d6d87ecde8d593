package load

import (
	"fmt"
	"net/url"

	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http/httpguts"
)

// checkRequest refuses a method or header that would not survive on the
// wire as one field: the HTTP/1.1 client writes them verbatim, so a CR or
// LF in a value would end the field early and smuggle another one in, and
// a space in a method would shift the request line.
func checkRequest(t Target) error {
	if err := transport.CheckMethod(t.Method); err != nil {
		return fmt.Errorf("request %w", err)
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
// what transport.CheckURL refuses (a scheme other than http and https, no
// host, a port out of range or 0, which no server listens on), and user
// credentials, which the clients do not send: a run that silently left
// them out would measure 401s without saying why. An internationalized
// host name is put in its ASCII form in u.
func checkURL(raw string, u *url.URL) error {
	if err := transport.CheckURL(u); err != nil {
		return fmt.Errorf("target URL %q: %w", raw, err)
	}
	if u.User != nil {
		return fmt.Errorf("target URL %q: credentials in the URL are not sent; give them as a header, -H 'Authorization: Basic ...'", raw)
	}
	return nil
}
