package tlsscan

import (
	"crypto/tls"
	"fmt"
	"mime"
	"net"
	"net/url"
	"strings"
)

// httpRules are the HTTP-level rules.
var httpRules = []rule{ruleHTTP2, ruleHTTP3, ruleKeepAlive, ruleCompression, ruleRedirect, ruleHSTS, ruleCSP, ruleDotfiles,
	ruleBREACH, ruleContentTypeOptions, ruleFrameOptions, ruleReferrerPolicy, rulePermissionsPolicy, ruleCookies}

func checked(r *Report, check string) bool {
	for _, n := range r.NotChecked {
		if strings.HasPrefix(n, check+":") {
			return false
		}
	}
	return true
}

// port is the audited HTTPS port, for the listen lines of fixes.
func (r *Report) port() string {
	if _, p, err := net.SplitHostPort(r.Address); err == nil {
		return p
	}
	return "443"
}

// connectionRounds is the round trips of a new connection: 1 for TCP and
// those the default client's full handshake took, as counted (when not
// counted, 1 for TLS 1.3, else 2).
func (r *Report) connectionRounds() float64 {
	return 1 + r.fullRounds()
}

// fullRounds is the round trips of the default client's full handshake,
// as counted on the wire; when not counted, what its version takes.
func (r *Report) fullRounds() float64 {
	switch {
	case r.Negotiated.HandshakeRounds > 0:
		return float64(r.Negotiated.HandshakeRounds)
	case r.Negotiated.Version == tls.VersionName(VersionTLS13):
		return 1
	}
	return 2
}

func ruleHTTP2(r *Report) []Finding {
	if r.Negotiated.ALPN == "h2" || !checked(r, "alpn") {
		return nil
	}
	c := r.rtts(r.connectionRounds(), "per extra connection (HTTP/1.1 browsers open up to 6 per origin)")
	c.Note = "each extra connection pays a TCP and a " + r.Negotiated.Version + " handshake"
	got := r.Negotiated.ALPN
	if got == "" {
		got = "no protocol"
	}
	return one(Finding{ID: "http2-missing", Severity: Medium, Category: Speed, Title: "HTTP/2 is not offered",
		Evidence: "offered h2 and http/1.1 in ALPN; the server chose " + got, Cost: c,
		Fix:       versionFix(r.HTTP.NginxVersion, "1.25.1", "http2 on;", "listen "+r.port()+" ssl http2;"),
		Reason:    "HTTP/2 multiplexes all requests over one connection: one handshake per origin",
		Reference: refRFC9113})
}

func ruleHTTP3(r *Report) []Finding {
	h := r.HTTP3
	if h.Advertised && !h.Reachable {
		return one(Finding{ID: "http3-unreachable", Severity: Medium, Category: Speed,
			Title:    "HTTP/3 is advertised but QUIC does not answer",
			Evidence: fmt.Sprintf("Alt-Svc names h3 on UDP port %s: %s", h.Port, h.Error),
			Cost:     Cost{Per: "per connection of clients that try QUIC", Note: "clients race or retry QUIC before falling back to TCP"},
			Fix:      "# open UDP port " + h.Port + " in the firewall, or remove the Alt-Svc header",
			Reason:   "a broken advertisement is worse than none", Reference: refRFC9114})
	}
	if h.Advertised || r.HTTP.Status == 0 {
		return nil
	}
	return one(Finding{ID: "http3-missing", Severity: Info, Category: About, Title: "HTTP/3 is not advertised",
		Evidence: "no h3 in Alt-Svc", Cost: Cost{Note: "QUIC sets up transport and TLS in 1 round trip instead of 2"},
		Fix: versionFix(r.HTTP.NginxVersion, "1.25.0", "listen "+r.port()+" quic reuseport;\nadd_header Alt-Svc 'h3=\":"+r.port()+"\"; ma=86400';",
			"# HTTP/3 needs nginx 1.25.0 or later (ngx_http_v3_module)"),
		Reason: "HTTP/3 saves a round trip per connection and avoids TCP head-of-line blocking", Reference: refRFC9114})
}

func ruleKeepAlive(r *Report) []Finding {
	if r.HTTP.KeepAlive || r.HTTP.KeepAliveRequests == 0 {
		return nil
	}
	c := r.rtts(r.connectionRounds(), "per request after the first")
	c.Note = "every request pays a new TCP and " + r.Negotiated.Version + " handshake"
	return one(Finding{ID: "keepalive-off", Severity: High, Category: Speed, Title: "connections are not kept alive",
		Evidence: fmt.Sprintf("%d of %d requests in a row used the first connection", r.HTTP.KeepAliveRequests, KeepAliveRequests),
		Cost:     c, Fix: "keepalive_timeout 65s;\nkeepalive_requests 1000;",
		Reason: "reusing a connection skips the handshakes and TCP slow start", Reference: "RFC 9112 section 9.3"})
}

// minCompressionSaving is the smallest saving worth a finding.
const minCompressionSaving = 100

func ruleCompression(r *Report) []Finding {
	h := r.HTTP
	saved := h.BodyBytes - h.GzipBytes
	if h.GzipBytes == 0 || saved < minCompressionSaving {
		return nil
	}
	sev := Low
	if saved > 10<<10 {
		sev = Medium
	}
	mt, _, _ := mime.ParseMediaType(h.ContentType)
	fix := "gzip on;"
	if mt != "text/html" {
		fix += "\ngzip_types " + mt + ";  # text/html is always included"
	}
	// Compressed pages that reflect input next to a secret are what
	// BREACH needs: the advice says so.
	fix += "\n# not for pages that reflect input next to secrets (CSRF tokens): see breach"
	return one(Finding{ID: "compression-off", Severity: sev, Category: Speed, Title: "text is sent uncompressed",
		Evidence: fmt.Sprintf("%s response of %d bytes without Content-Encoding; gzip -6 makes it %d", mt, h.BodyBytes, h.GzipBytes),
		Cost:     Cost{Bytes: saved, Per: "per response"}, Fix: fix,
		Reason: "compressed text arrives in fewer round trips of slow start; static text is safe to compress, but a page that " +
			"reflects input next to a secret gives it away to BREACH",
		Reference: "RFC 9110 section 8.4; https://breachattack.com"})
}

func ruleRedirect(r *Report) []Finding {
	rd := r.Redirect
	if rd == nil || !rd.Reachable {
		return nil
	}
	first := rd.Hops[0]
	if !rd.ToHTTPS {
		return one(Finding{ID: "http-no-redirect", Severity: Medium, Category: Safety,
			Title:    "plain HTTP is served without a redirect to HTTPS",
			Evidence: fmt.Sprintf("GET %s answered %d", first.URL, first.Status),
			Fix:      redirectFix(first.URL, r.port()),
			Reason:   "visitors who type the name without https:// stay on an unencrypted connection", Reference: refRFC6797})
	}
	if len(rd.Hops) <= 1 {
		return nil
	}
	c := Cost{Time: rd.Cost, Per: "per visit that starts from http://", Note: "measured; each hop is a new request"}
	return one(Finding{ID: "redirect-chain", Severity: Low, Category: Speed, Title: "several redirects before HTTPS",
		Evidence: fmt.Sprintf("%d hops from %s", len(rd.Hops), rd.URL), Cost: c,
		Fix:    redirectFix(first.URL, r.port()), // straight to the audited HTTPS port
		Reason: "each hop is a request, often on a new connection", Reference: refRFC6797})
}

// redirectFix is a plain-HTTP server block that redirects to the audited
// HTTPS port: on the port of plainURL, to https://$host with the HTTPS
// port unless it is 443.
func redirectFix(plainURL, httpsPort string) string {
	port := "80"
	if u, err := url.Parse(plainURL); err == nil && u.Port() != "" {
		port = u.Port()
	}
	host := "$host"
	if httpsPort != "443" {
		host += ":" + httpsPort
	}
	return "server {\n    listen " + port + ";\n    return 301 https://" + host + "$request_uri;\n}"
}

// hstsYear is the max-age preload lists require.
const hstsYear = 31536000

const hstsFix = `add_header Strict-Transport-Security "max-age=63072000; includeSubDomains; preload" always;`

func ruleHSTS(r *Report) []Finding {
	h := r.HTTP.HSTS
	if r.HTTP.Status == 0 {
		return nil
	}
	if h.Header == "" {
		c := Cost{Per: "per visit that starts from http://", Note: "HSTS lets the browser skip the http:// request"}
		if r.Redirect != nil && r.Redirect.ToHTTPS {
			c.Time = r.Redirect.Cost
			c.Note = "the measured redirect, which HSTS lets the browser skip"
		}
		return one(Finding{ID: "hsts-missing", Severity: Medium, Category: Safety, Title: "no Strict-Transport-Security header",
			Evidence: "the HTTPS response has no Strict-Transport-Security header", Cost: c, Fix: hstsFix,
			Reason: "without HSTS the first request of every visit can go out over plain HTTP and be intercepted", Reference: refRFC6797})
	}
	if h.MaxAge < hstsYear {
		return one(Finding{ID: "hsts-short", Severity: Low, Category: Safety, Title: "HSTS max-age under a year",
			Evidence: h.Header, Fix: hstsFix,
			Reason: "a short max-age lapses between visits; preload lists require a year", Reference: refRFC6797})
	}
	if !h.IncludeSubDomains || !h.Preload {
		return one(Finding{ID: "hsts-not-preloadable", Severity: Info, Category: About,
			Title: "HSTS is not eligible for the preload list", Evidence: h.Header, Fix: hstsFix,
			Reason: "preloaded hosts are HTTPS-only from the very first visit (needs includeSubDomains and preload)", Reference: refRFC6797})
	}
	return nil
}

func ruleCSP(r *Report) []Finding {
	h := r.HTTP
	mt, _, _ := mime.ParseMediaType(h.ContentType)
	if mt != "text/html" {
		return nil
	}
	const fix = `add_header Content-Security-Policy "default-src 'self'; object-src 'none'; base-uri 'self'" always;`
	if h.CSP == "" {
		return one(Finding{ID: "csp-missing", Severity: Low, Category: Safety, Title: "no Content-Security-Policy",
			Evidence: "the HTML response has no Content-Security-Policy header", Fix: fix,
			Reason:    "a policy limits what injected script can do",
			Reference: "https://www.w3.org/TR/CSP3/"})
	}
	if len(h.CSPUnsafe) == 0 {
		return nil
	}
	return one(Finding{ID: "csp-unsafe", Severity: Low, Category: Safety, Title: "the CSP allows " + strings.Join(h.CSPUnsafe, " and "),
		Evidence: h.CSP, Fix: fix + "  # move inline scripts to files or use nonces",
		Reason:    "unsafe-inline and unsafe-eval let injected script run, defeating the policy",
		Reference: "https://www.w3.org/TR/CSP3/"})
}

func ruleDotfiles(r *Report) []Finding {
	var exposed []string
	for _, d := range r.HTTP.Dotfiles {
		if d.Exposed {
			exposed = append(exposed, d.Path)
		}
	}
	if len(exposed) == 0 {
		return nil
	}
	return one(Finding{ID: "dotfiles-exposed", Severity: High, Category: Safety, Title: "dotfiles are served",
		Evidence: "200 with content for " + strings.Join(exposed, ", "),
		Fix:      "location ~ /\\.(?!well-known) {\n    deny all;\n}",
		Reason:   "/.git and /.env leak source code, credentials and keys", Reference: "https://github.com/digitalocean/nginxconfig.io (security.conf)"})
}
