package transport

import (
	"net"
	"net/url"
)

// HostPort returns u's host:port, with the scheme's default port (80 for
// http, 443 for https) when the URL has none.
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
