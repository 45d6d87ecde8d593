package tlsscan

import (
	"fmt"
	"mime"
	"strings"
)

// The rules on the response's other security headers, its cookies and
// the compression of its pages (BREACH).

// isHTML reports whether the audited response is an HTML page.
func (r *Report) isHTML() bool {
	mt, _, _ := mime.ParseMediaType(r.HTTP.ContentType)
	return mt == "text/html"
}

// breachFix keeps compression for static text and turns it off for pages.
const breachFix = "gzip off;  # here, for the pages that reflect input next to secrets (CSRF tokens, session data)\n" +
	"# keep it for static text: location ~* \\.(css|js|svg|json)$ { gzip on; }"

func ruleBREACH(r *Report) []Finding {
	h := r.HTTP
	enc := strings.ToLower(strings.TrimSpace(h.ContentEncoding))
	if h.Status == 0 || !r.isHTML() || (enc != "gzip" && enc != "br") {
		return nil
	}
	return one(Finding{ID: "breach", Severity: Medium, Category: Safety, Attacks: []string{"BREACH"},
		Title:    "HTML pages are compressed over HTTPS (BREACH conditions)",
		Evidence: fmt.Sprintf("text/html response with Content-Encoding: %s to a request that accepted gzip and br", enc),
		Fix:      breachFix,
		Reason: "an attacker who can make a victim's browser send requests and watch the sizes of the answers can recover a secret " +
			"from a compressed page that also reflects input; pages without both need no change",
		Reference: "https://breachattack.com; RFC 7457 section 2.6"})
}

// headerRule is a rule for a response header that should be present.
func headerRule(sev Severity, id, header string, present func(h HTTPResult) bool, htmlOnly bool, fix, reason, ref string) rule {
	return func(r *Report) []Finding {
		if r.HTTP.Status == 0 || present(r.HTTP) || (htmlOnly && !r.isHTML()) {
			return nil
		}
		cat := Safety
		if sev == Info {
			cat = About
		}
		return one(Finding{ID: id, Severity: sev, Category: cat, Title: "no " + header + " header",
			Evidence: "the response has no " + header + " header", Fix: fix, Reason: reason, Reference: ref})
	}
}

var (
	ruleContentTypeOptions = headerRule(Low, "nosniff-missing", "X-Content-Type-Options: nosniff",
		func(h HTTPResult) bool { return strings.EqualFold(strings.TrimSpace(h.ContentTypeOptions), "nosniff") }, false,
		`add_header X-Content-Type-Options nosniff always;`,
		"without it browsers may guess a response's type and run an upload as script",
		"https://fetch.spec.whatwg.org/#x-content-type-options-header")
	ruleFrameOptions = headerRule(Low, "framing-allowed", "X-Frame-Options or CSP frame-ancestors",
		func(h HTTPResult) bool {
			return h.FrameOptions != "" || strings.Contains(strings.ToLower(h.CSP), "frame-ancestors")
		}, true,
		`add_header X-Frame-Options SAMEORIGIN always;  # or frame-ancestors 'self' in the CSP`,
		"another site can show the page in a frame and trick users into clicking it (clickjacking)",
		"RFC 7034; https://www.w3.org/TR/CSP3/#directive-frame-ancestors")
	ruleReferrerPolicy = headerRule(Info, "referrer-policy-missing", "Referrer-Policy",
		func(h HTTPResult) bool { return h.ReferrerPolicy != "" }, true,
		`add_header Referrer-Policy strict-origin-when-cross-origin always;`,
		"browsers default to strict-origin-when-cross-origin; the header makes the policy explicit for older ones",
		"https://www.w3.org/TR/referrer-policy/")
	rulePermissionsPolicy = headerRule(Info, "permissions-policy-missing", "Permissions-Policy",
		func(h HTTPResult) bool { return h.PermissionsPolicy != "" }, true,
		`add_header Permissions-Policy "camera=(), microphone=(), geolocation=()" always;`,
		"the page's scripts, injected ones too, may ask for the camera, microphone or location",
		"https://www.w3.org/TR/permissions-policy/")
)

// cookieFix sets the attributes on the cookies of the application behind
// nginx (proxy_cookie_flags, nginx 1.19.3 and later).
const cookieFix = "proxy_cookie_flags ~ secure httponly samesite=lax;  # cookies set by the application behind proxy_pass"

func ruleCookies(r *Report) []Finding {
	var noSecure, noHTTPOnly, noSameSite []string
	for _, c := range r.HTTP.Cookies {
		if !c.Secure {
			noSecure = append(noSecure, c.Name)
		}
		if !c.HTTPOnly {
			noHTTPOnly = append(noHTTPOnly, c.Name)
		}
		if c.SameSite == "" {
			noSameSite = append(noSameSite, c.Name)
		}
	}
	var ev []string
	for _, m := range []struct {
		names []string
		attr  string
	}{{noSecure, "Secure"}, {noHTTPOnly, "HttpOnly"}, {noSameSite, "SameSite"}} {
		if len(m.names) > 0 {
			ev = append(ev, "without "+m.attr+": "+strings.Join(m.names, ", "))
		}
	}
	if len(ev) == 0 {
		return nil
	}
	sev := Low
	if len(noSecure) > 0 {
		sev = Medium
	}
	return one(Finding{ID: "cookie-flags", Severity: sev, Category: Safety, Title: "cookies lack Secure, HttpOnly or SameSite",
		Evidence: strings.Join(ev, "; "), Fix: cookieFix,
		Reason: "without Secure a cookie also goes out over plain HTTP, without HttpOnly scripts can read it, " +
			"without SameSite other sites' requests carry it",
		Reference: "RFC 6265 section 4.1.2; draft-ietf-httpbis-rfc6265bis (SameSite)"})
}
