package transport

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// CheckURL checks what a request can be sent to: an http or https URL
// with a host and, if it names a port, one from 1 to 65535 (0 is refused:
// no server listens on it). It puts an internationalized host name in its
// ASCII form (A-labels) in u.Host, as DNS, SNI, the certificate check and
// the Host header need it; an ASCII host, IP literals included, is left
// as given. probe, load and audit check their targets with it.
func CheckURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Hostname() == "" {
		return errors.New("no host")
	}
	p := u.Port()
	if p != "" {
		if _, err := checkPort(p); err != nil {
			return err
		}
	}
	host, err := ASCIIHost(u.Hostname())
	if err != nil {
		return err
	}
	if host != strings.ToLower(u.Hostname()) { // only a changed name: case and IP literals stay as given
		u.Host = host
		if p != "" {
			u.Host = net.JoinHostPort(host, p)
		}
	}
	return nil
}

// URLPort returns the port number of a URL that CheckURL accepted: the
// one it names, or the scheme's default (80 for http, 443 for https).
func URLPort(u *url.URL) int {
	if n, err := checkPort(u.Port()); err == nil {
		return n
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// checkPort reads a port from 1 to 65535.
func checkPort(p string) (int, error) {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %q: want 1 to 65535", p)
	}
	return n, nil
}

// RequestMethod is the method a request goes with: the one given, else
// POST when it has a body (as curl -d does), else GET.
func RequestMethod(method string, hasBody bool) string {
	switch {
	case method != "":
		return method
	case hasBody:
		return http.MethodPost
	}
	return http.MethodGet
}

// CheckMethod checks a request method: an HTTP token (RFC 9110 section
// 9.1), the same characters as a header name. The HTTP/1.1 clients write
// the method verbatim, so a space would shift the request line and a CR
// or LF would smuggle in a header; "" means GET and passes.
func CheckMethod(method string) error {
	if method != "" && !httpguts.ValidHeaderFieldName(method) {
		return fmt.Errorf("method %q is not an HTTP token (such as GET or POST, with no spaces or control characters)", method)
	}
	return nil
}
