package tlsscan

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTTPResult is what the HTTP-level checks found on the HTTPS port.
type HTTPResult struct {
	Status int    `json:"status"`
	Server string `json:"server,omitempty"`
	// NginxVersion is the version the Server header reveals, if any.
	NginxVersion string `json:"nginx_version,omitempty"`
	HSTS         HSTS   `json:"hsts"`
	CSP          string `json:"csp,omitempty"`
	// CSPUnsafe lists the unsafe-inline and unsafe-eval sources allowed.
	CSPUnsafe   []string `json:"csp_unsafe,omitempty"`
	ContentType string   `json:"content_type,omitempty"`
	// ContentEncoding is the compression of the response ("" for none);
	// BodyBytes its size on the wire and GzipBytes its size under gzip
	// level 6 when the server sent it uncompressed.
	ContentEncoding string `json:"content_encoding,omitempty"`
	BodyBytes       int64  `json:"body_bytes"`
	GzipBytes       int64  `json:"gzip_bytes,omitempty"`
	// KeepAlive reports whether a connection carried KeepAliveRequests
	// requests in a row (of KeepAliveRequests tried).
	KeepAlive         bool   `json:"keep_alive"`
	KeepAliveRequests int    `json:"keep_alive_requests"`
	AltSvc            string `json:"alt_svc,omitempty"`
	// Dotfiles lists the paths tried and whether their content was served.
	Dotfiles []Dotfile `json:"dotfiles"`
	// The other security headers of the response, as sent.
	ContentTypeOptions string `json:"x_content_type_options,omitempty"`
	FrameOptions       string `json:"x_frame_options,omitempty"`
	ReferrerPolicy     string `json:"referrer_policy,omitempty"`
	PermissionsPolicy  string `json:"permissions_policy,omitempty"`
	// Cookies are the cookies the response sets, with their attributes.
	Cookies []Cookie `json:"cookies,omitempty"`
}

// Cookie is a cookie a response sets: its name and the attributes that
// keep it from scripts, plain HTTP and other sites.
type Cookie struct {
	Name     string `json:"name"`
	Secure   bool   `json:"secure"`
	HTTPOnly bool   `json:"http_only"`
	// SameSite is the attribute's value ("" when absent).
	SameSite string `json:"same_site,omitempty"`
}

// maxCookies bounds the cookies read from one response.
const maxCookies = 50

// readCookies reads the Set-Cookie headers of a response, at most
// maxCookies of them.
func readCookies(resp *http.Response) []Cookie {
	var out []Cookie
	for i, c := range resp.Cookies() {
		if i == maxCookies {
			break
		}
		ck := Cookie{Name: c.Name, Secure: c.Secure, HTTPOnly: c.HttpOnly}
		switch c.SameSite {
		case http.SameSiteLaxMode:
			ck.SameSite = "Lax"
		case http.SameSiteStrictMode:
			ck.SameSite = "Strict"
		case http.SameSiteNoneMode:
			ck.SameSite = "None"
		}
		out = append(out, ck)
	}
	return out
}

// HSTS is the parsed Strict-Transport-Security header.
type HSTS struct {
	Header            string `json:"header,omitempty"`
	MaxAge            int64  `json:"max_age_s"`
	IncludeSubDomains bool   `json:"include_subdomains"`
	Preload           bool   `json:"preload"`
}

// Dotfile is one probe for a file that must not be served.
type Dotfile struct {
	Path    string `json:"path"`
	Status  int    `json:"status"`
	Exposed bool   `json:"exposed"`
}

// KeepAliveRequests is how many requests the keep-alive check sends.
const KeepAliveRequests = 3

// parseHSTS reads a Strict-Transport-Security header (RFC 6797, 6.1).
func parseHSTS(v string) HSTS {
	h := HSTS{Header: v}
	for _, d := range strings.Split(v, ";") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "max-age":
			h.MaxAge, _ = strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64)
		case "includesubdomains":
			h.IncludeSubDomains = true
		case "preload":
			h.Preload = true
		}
	}
	return h
}

// cspUnsafe returns the unsafe sources a policy allows for scripts.
func cspUnsafe(policy string) []string {
	var out []string
	script, def := "", ""
	for _, d := range strings.Split(policy, ";") {
		f := strings.Fields(strings.ToLower(d))
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "script-src":
			script = d
		case "default-src":
			def = d
		}
	}
	if script == "" {
		script = def
	}
	for _, u := range []string{"'unsafe-inline'", "'unsafe-eval'"} {
		if strings.Contains(strings.ToLower(script), u) {
			out = append(out, strings.Trim(u, "'"))
		}
	}
	return out
}

// nginxVersion returns the version in a Server header such as "nginx/1.22.1".
func nginxVersion(server string) string {
	v, ok := strings.CutPrefix(server, "nginx/")
	f := strings.Fields(v)
	if !ok || len(f) == 0 {
		return ""
	}
	return f[0]
}

// readResponse fills the result from the audited path's response.
func (h *HTTPResult) readResponse(resp *http.Response, body []byte) {
	h.Status = resp.StatusCode
	h.Server = resp.Header.Get("Server")
	h.NginxVersion = nginxVersion(h.Server)
	h.HSTS = parseHSTS(resp.Header.Get("Strict-Transport-Security"))
	h.CSP = resp.Header.Get("Content-Security-Policy")
	h.CSPUnsafe = cspUnsafe(h.CSP)
	h.ContentType = resp.Header.Get("Content-Type")
	h.ContentEncoding = resp.Header.Get("Content-Encoding")
	h.AltSvc = resp.Header.Get("Alt-Svc")
	h.ContentTypeOptions = resp.Header.Get("X-Content-Type-Options")
	h.FrameOptions = resp.Header.Get("X-Frame-Options")
	h.ReferrerPolicy = resp.Header.Get("Referrer-Policy")
	h.PermissionsPolicy = resp.Header.Get("Permissions-Policy")
	h.Cookies = readCookies(resp)
	h.BodyBytes = int64(len(body))
	if h.ContentEncoding == "" && isText(h.ContentType) && len(body) > 0 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, 6)
		_, _ = zw.Write(body)
		_ = zw.Close()
		h.GzipBytes = int64(buf.Len())
	}
}

// isText reports media types worth compressing.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+xml") || strings.HasSuffix(mt, "+json") ||
		mt == "application/javascript" || mt == "application/json" || mt == "application/xml" || mt == "image/svg+xml"
}

// client returns an HTTP/1.1 client for the target that follows no
// redirects. The chain was verified by the chain check.
//
// It has no timeout of its own, which would count the wait for a slot:
// the dialer bounds each connection, from the moment it has its slot, by
// a deadline. An idle connection is closed after the same time, so that
// one the client keeps after its last request frees its slot.
func (t *target) client(keepAlive bool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig:   t.config(tls.VersionTLS13),
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
		DisableKeepAlives: !keepAlive,
		DialContext:       t.dialer.DialContext,
		IdleConnTimeout:   t.timeout,
		// net/http's default is 10 MB; every command has the same limit.
		MaxResponseHeaderBytes: t.maxHeader,
	}
	return &http.Client{Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// checkKeepAlive sends requests one after another on one client and
// counts those that reused the first connection.
func (t *target) checkKeepAlive(ctx context.Context, base string, h *HTTPResult) error {
	c := t.client(true)
	defer c.CloseIdleConnections()
	var reused atomic.Int32
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if i.Reused {
			reused.Add(1)
		}
	}}
	for range KeepAliveRequests {
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, base+t.path, nil)
		if err != nil {
			return err
		}
		resp, err := c.Do(req)
		if err != nil {
			return fmt.Errorf("keep-alive check: %w", err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
	}
	h.KeepAliveRequests = 1 + int(reused.Load())
	h.KeepAlive = h.KeepAliveRequests == KeepAliveRequests
	return nil
}

// dotfilePaths are files that leak secrets or source when served.
var dotfilePaths = []string{"/.git/HEAD", "/.env"}

// checkDotfiles asks for each dotfile, on connections of their own, side
// by side; a 200 whose body is what such a file holds (not a catch-all
// page) counts as exposed.
func (t *target) checkDotfiles(ctx context.Context, base string, h *HTTPResult) error {
	c := t.client(false)
	found := make([]Dotfile, len(dotfilePaths))
	errs := make([]error, len(dotfilePaths))
	var wg sync.WaitGroup
	for i, p := range dotfilePaths {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+p, nil)
			if err != nil {
				errs[i] = err
				return
			}
			resp, err := c.Do(req)
			if err != nil {
				errs[i] = fmt.Errorf("dotfile check: %w", err)
				return
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			found[i] = Dotfile{Path: p, Status: resp.StatusCode}
			found[i].Exposed = resp.StatusCode == http.StatusOK && dotfileContent(p, body)
		})
	}
	wg.Wait()
	for _, d := range found {
		if d.Path != "" {
			h.Dotfiles = append(h.Dotfiles, d)
		}
	}
	return firstErr(errs)
}

// envLine is a KEY=value line of a .env file, "export" allowed.
var envLine = regexp.MustCompile(`(?m)^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_]*=`)

// gitObjectID is a SHA-1 object name, what a detached .git/HEAD holds.
var gitObjectID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// dotfileContent reports whether body is what the file at path holds: a
// .git/HEAD is "ref: ..." or an object name, a .env has KEY=value lines.
func dotfileContent(path string, body []byte) bool {
	switch path {
	case "/.git/HEAD":
		head := strings.TrimSpace(string(body))
		return strings.HasPrefix(head, "ref: ") || gitObjectID.MatchString(head)
	case "/.env":
		return envLine.Match(body)
	}
	return false
}

// Redirect is what the plain-HTTP port did with a request.
type Redirect struct {
	URL string `json:"url"`
	// Reachable is false when nothing answered on the plain port.
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
	Hops      []Hop  `json:"hops,omitempty"`
	// ToHTTPS is true when the redirects end on an https:// URL.
	ToHTTPS bool `json:"to_https"`
	// Cost is the time of all the hops before the HTTPS request.
	Cost Duration `json:"cost_ns"`
}

// Hop is one redirect response.
type Hop struct {
	URL      string   `json:"url"`
	Status   int      `json:"status"`
	Location string   `json:"location,omitempty"`
	Time     Duration `json:"time_ns"`
}

// maxHops bounds the redirects followed.
const maxHops = 5

// checkRedirect requests the plain-HTTP URL and follows redirects, each on
// a new connection as a first visit would, until an https:// URL.
func (t *target) checkRedirect(ctx context.Context, plainURL string) Redirect {
	r := Redirect{URL: plainURL}
	c := t.client(false)
	next := plainURL
	for range maxHops {
		u, err := url.Parse(next)
		if err != nil || u.Scheme != "http" {
			break
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next, nil)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			r.Error = err.Error()
			return r
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		r.Reachable = true
		hop := Hop{URL: next, Status: resp.StatusCode, Time: Duration(time.Since(start))}
		loc, err := resp.Location()
		if resp.StatusCode < 300 || resp.StatusCode > 399 || err != nil {
			r.Hops = append(r.Hops, hop)
			return r
		}
		hop.Location = loc.String()
		r.Hops = append(r.Hops, hop)
		r.Cost += hop.Time
		next = loc.String()
		r.ToHTTPS = loc.Scheme == "https"
	}
	return r
}
