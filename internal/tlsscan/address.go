package tlsscan

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
)

// ParseTarget reads the server to audit as a user names it: HOST,
// HOST:PORT, [IPv6]:PORT or an https:// URL, whose path the HTTP checks
// request. The port defaults to 443; the host comes back in lower case and,
// for an internationalized name, in the ASCII form that goes to DNS, SNI
// and the certificate check.
func ParseTarget(arg string) (host string, port int, path string, err error) {
	s := arg
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" {
		return "", 0, "", fmt.Errorf("audit target %q: want HOST[:PORT] or https://HOST[:PORT]/PATH", arg)
	}
	if u.Scheme == "http" {
		// What works instead: the HTTPS side, with this port's redirect.
		port := u.Port()
		if port == "" {
			port = "80"
		}
		return "", 0, "", fmt.Errorf("audit target %q: audit checks an HTTPS server and, with --http-port, the redirect of its plain port "+
			"to it: httpslab audit https://%s/ --http-port %s (with the HTTPS port after the host when it is not 443)", arg, u.Hostname(), port)
	}
	if u.Scheme != "https" {
		return "", 0, "", fmt.Errorf("audit target %q: the scheme must be https (the plain port is --http-port)", arg)
	}
	if err := transport.CheckURL(u); err != nil {
		return "", 0, "", fmt.Errorf("audit target %q: %w", arg, err)
	}
	path = u.EscapedPath()
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return strings.ToLower(u.Hostname()), transport.URLPort(u), path, nil
}

// FirstAtLeast returns the first finding of severity sev or above, or nil:
// the one that trips --fail-on.
func (r *Report) FirstAtLeast(sev Severity) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Severity >= sev {
			return &r.Findings[i]
		}
	}
	return nil
}
