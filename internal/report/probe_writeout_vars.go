package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// Value kinds of write-out variables; they decide the text and JSON form.
const (
	kindNull   = iota // nothing in text, null in JSON
	kindString        // escaped (Escape); a JSON string, exact
	kindLines         // lines escaped where they were made (%{certs}); raw, exact, as a JSON string
	kindInt           // decimal; a JSON number
	kindCode          // three digits (%03d), as curl prints response codes
	kindTime          // seconds with six decimals; a JSON number
)

type woValue struct {
	kind int
	s    string
	raw  string // kindLines: s before its fields were escaped
	n    int64
	d    time.Duration
}

func str(s string) woValue         { return woValue{kind: kindString, s: s} }
func lines(s, raw string) woValue  { return woValue{kind: kindLines, s: s, raw: raw} }
func num(n int64) woValue          { return woValue{kind: kindInt, n: n} }
func secs(d time.Duration) woValue { return woValue{kind: kindTime, d: d} }
func strOrNull(s string) woValue {
	if s == "" {
		return woValue{}
	}
	return str(s)
}

// text is the value as curl writes it into the format.
func (v woValue) text() string {
	switch v.kind {
	case kindString:
		return Escape(v.s)
	case kindLines:
		return v.s
	case kindInt:
		return strconv.FormatInt(v.n, 10)
	case kindCode:
		return fmt.Sprintf("%03d", v.n)
	case kindTime:
		return curlSeconds(v.d)
	}
	return ""
}

// jsonText is the value as it appears in %{json}.
func (v woValue) jsonText() string {
	switch v.kind {
	case kindLines:
		b, _ := json.Marshal(v.raw)
		return string(b)
	case kindString:
		b, _ := json.Marshal(v.s)
		return string(b)
	case kindInt, kindCode:
		return strconv.FormatInt(v.n, 10)
	case kindTime:
		return curlSeconds(v.d)
	}
	return "null"
}

// writeoutVars maps each variable to its value; the meanings are curl's
// (curl(1), -w), computed from the hops of one transfer. Times are
// cumulative from the start of the request and, as libcurl documents for
// each time_* but time_redirect and time_total, with -L the times of
// every hop are added together.
var writeoutVars = map[string]func(c *woContext) woValue{
	"certs":                   func(c *woContext) woValue { return lines(c.certs(Escape), c.certs(exact)) },
	"content_type":            func(c *woContext) woValue { return strOrNull(c.firstHeader("Content-Type")) },
	"errormsg":                func(c *woContext) woValue { return strOrNull(c.errMsg()) },
	"exitcode":                func(c *woContext) woValue { return num(int64(c.exitCode())) },
	"filename_effective":      func(c *woContext) woValue { return strOrNull(c.in.Filename) },
	"http_code":               func(c *woContext) woValue { return woValue{kind: kindCode, n: int64(c.resp.Status)} },
	"http_connect":            func(c *woContext) woValue { return woValue{kind: kindCode} },
	"http_version":            func(c *woContext) woValue { return str(httpVersion(c.resp.Proto)) },
	"local_ip":                func(c *woContext) woValue { return str(hostOf(c.last.LocalAddr)) },
	"local_port":              func(c *woContext) woValue { return num(portOf(c.last.LocalAddr)) },
	"method":                  func(c *woContext) woValue { return str(c.last.Method) },
	"num_certs":               func(c *woContext) woValue { return num(int64(len(c.chain()))) },
	"num_connects":            func(c *woContext) woValue { return num(c.numConnects()) },
	"num_headers":             func(c *woContext) woValue { return num(c.numHeaders()) },
	"num_redirects":           func(c *woContext) woValue { return num(int64(len(c.in.Hops) - 1)) },
	"proxy_ssl_verify_result": func(c *woContext) woValue { return num(0) },
	"redirect_url":            func(c *woContext) woValue { return strOrNull(c.redirectURL()) },
	"referer":                 func(c *woContext) woValue { return strOrNull(firstOf(c.last.RequestHeader, "Referer")) },
	"remote_ip":               func(c *woContext) woValue { return str(hostOf(c.last.RemoteAddr)) },
	"remote_port":             func(c *woContext) woValue { return num(portOf(c.last.RemoteAddr)) },
	"response_code":           func(c *woContext) woValue { return woValue{kind: kindCode, n: int64(c.resp.Status)} },
	"scheme":                  func(c *woContext) woValue { return strOrNull(c.scheme()) },
	"size_download":           func(c *woContext) woValue { return num(c.last.Bytes.BodySize) },
	"size_header": func(c *woContext) woValue {
		return num(c.sum(func(t *probe.Timeline) int64 { return t.Bytes.HeaderSize }))
	},
	"size_request":       func(c *woContext) woValue { return num(c.sum(requestSize)) },
	"size_upload":        func(c *woContext) woValue { return num(uploadSize(c.last)) },
	"speed_download":     func(c *woContext) woValue { return num(perSecond(c.last.Bytes.BodySize, c.total())) },
	"speed_upload":       func(c *woContext) woValue { return num(perSecond(uploadSize(c.last), c.total())) },
	"ssl_verify_result":  func(c *woContext) woValue { return num(c.verifyResult()) },
	"time_appconnect":    func(c *woContext) woValue { return secs(c.times.appconnect) },
	"time_connect":       func(c *woContext) woValue { return secs(c.times.connect) },
	"time_namelookup":    func(c *woContext) woValue { return secs(c.times.namelookup) },
	"time_posttransfer":  func(c *woContext) woValue { return secs(c.times.posttransfer) },
	"time_pretransfer":   func(c *woContext) woValue { return secs(c.times.pretransfer) },
	"time_redirect":      func(c *woContext) woValue { return secs(c.redirect) },
	"time_starttransfer": func(c *woContext) woValue { return secs(c.times.starttransfer) },
	"time_total":         func(c *woContext) woValue { return secs(c.total()) },
	"url":                func(c *woContext) woValue { return str(c.first.URL) },
	"url_effective":      func(c *woContext) woValue { return str(effectiveURL(c.last.URL)) },
	"urlnum":             func(c *woContext) woValue { return num(0) },
}

// woContext is one transfer, prepared for the variables.
type woContext struct {
	in          *WriteOutInput
	first, last *probe.Timeline
	// resp is the last hop that got a response: the final one, or with
	// -L the redirect before a hop that failed. As in curl, the response
	// variables (http_code, http_version, content_type, headers) keep
	// the last response received.
	resp     *probe.Timeline
	times    curlTimes // summed over the hops
	redirect time.Duration
}

func newWriteoutContext(in *WriteOutInput) *woContext {
	c := &woContext{in: in, first: &probe.Timeline{}, last: &probe.Timeline{}}
	if n := len(in.Hops); n > 0 {
		c.first, c.last = &in.Hops[0], &in.Hops[n-1]
	}
	c.resp = c.last
	for i := len(in.Hops) - 1; i >= 0 && c.resp.Status == 0; i-- {
		if in.Hops[i].Status != 0 {
			c.resp = &in.Hops[i]
		}
	}
	for i := range in.Hops {
		c.times = c.times.add(hopTimes(&in.Hops[i]))
	}
	c.redirect = redirectTime(in.Hops)
	return c
}

// value returns the named variable's value.
func (c *woContext) value(name string) woValue {
	if f, ok := writeoutVars[name]; ok {
		return f(c)
	}
	return woValue{}
}

// total is time_total: the redirect hops and the final one.
func (c *woContext) total() time.Duration {
	return c.redirect + c.last.Total
}

func (c *woContext) sum(f func(*probe.Timeline) int64) int64 {
	var n int64
	for i := range c.in.Hops {
		n += f(&c.in.Hops[i])
	}
	return n
}

func (c *woContext) errMsg() string {
	if c.in.ErrorMessage != "" {
		return c.in.ErrorMessage
	}
	return c.last.Err
}

func (c *woContext) exitCode() int {
	if c.in.ExitCode == 0 && c.in.failed() {
		return 1
	}
	return c.in.ExitCode
}

func (c *woContext) chain() []transport.Cert {
	if c.last.TLS == nil {
		return nil
	}
	return c.last.TLS.Chain
}

// certs lists the chain's certificates as curl does with OpenSSL
// (curlCertInfo).
// certs is %{certs}, its fields passed through escape.
func (c *woContext) certs(escape func(string) string) string {
	var b strings.Builder
	for _, cert := range c.chain() {
		b.WriteString(curlCertInfo(cert, escape))
	}
	return b.String()
}

// exact is the escape of JSON output: none.
func exact(s string) string { return s }

// numConnects counts the hops that opened a new connection.
func (c *woContext) numConnects() int64 {
	return c.sum(func(t *probe.Timeline) int64 {
		_, tcp := t.Phase(probe.PhaseConnect)
		_, tls := t.Phase(probe.PhaseTLS)
		if !t.Reused && (tcp || tls) {
			return 1
		}
		return 0
	})
}

func (c *woContext) numHeaders() int64 {
	var n int64
	for _, v := range c.resp.Header {
		n += int64(len(v))
	}
	return n
}

// redirectURL is the Location of a final 3xx response, resolved against
// its URL (curl shows it when it did not follow it).
func (c *woContext) redirectURL() string {
	if c.last.Status < 300 || c.last.Status > 399 {
		return ""
	}
	loc := firstOf(c.last.Header, "Location")
	if loc == "" {
		return ""
	}
	base, err := url.Parse(c.last.URL)
	if err != nil {
		return loc
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	return base.ResolveReference(ref).String()
}

// scheme is written upper case, as curl 7.x writes it ("HTTPS"), and is
// empty (null in JSON) when no connection was made, as in curl.
func (c *woContext) scheme() string {
	if c.last.RemoteAddr == "" {
		return ""
	}
	u, err := url.Parse(c.last.URL)
	if err != nil {
		return ""
	}
	return strings.ToUpper(u.Scheme)
}

// verifyResult is OpenSSL's code for the chain check, as curl reports
// it: 0 for a verified chain or plain HTTP; with -k the code of the check
// that was run all the same; for a handshake that failed, the code of
// its certificate error, or 1 (unspecified) when it failed otherwise.
func (c *woContext) verifyResult() int64 {
	switch {
	case c.last.TLS != nil && c.last.TLS.Verified:
		return probe.VerifyOK
	case c.last.TLS != nil:
		return int64(c.last.TLS.VerifyResult)
	case c.last.Events.TLSStart.IsZero():
		return probe.VerifyOK // no handshake began
	}
	return int64(probe.VerifyResult(c.in.Err))
}

func (c *woContext) firstHeader(name string) string {
	return firstOf(c.resp.Header, name)
}

// header is %header{name}: the first value, trimmed.
func (c *woContext) header(name string) string {
	return strings.TrimSpace(firstOf(c.resp.Header, name))
}

// writeJSON writes %{json}: every variable, sorted by name.
func (c *woContext) writeJSON(w io.Writer) error {
	names := make([]string, 0, len(writeoutVars))
	for name := range writeoutVars {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", name, c.value(name).jsonText())
	}
	b.WriteByte('}')
	_, err := io.WriteString(w, b.String())
	return err
}

// writeHeaderJSON writes %{header_json}: lower-case names, values in
// arrays, names sorted (the wire order is not kept in the Timeline).
func (c *woContext) writeHeaderJSON(w io.Writer) error {
	h := make(map[string][]string, len(c.resp.Header))
	for k, v := range c.resp.Header {
		lk := strings.ToLower(k)
		h[lk] = append(h[lk], v...)
	}
	// One field a line, as curl writes it.
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(h)) {
		if i > 0 {
			b.WriteString(",\n")
		}
		name, _ := json.Marshal(k)
		values, err := json.Marshal(h[k])
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s:%s", name, values)
	}
	if len(h) > 0 {
		b.WriteByte('\n')
	}
	b.WriteByte('}')
	_, err := io.WriteString(w, b.String())
	return err
}

// firstOf returns the first value of a header, matching the name
// case-insensitively.
func firstOf(h map[string][]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// httpVersion turns "HTTP/1.1" into curl's "1.1", "HTTP/2.0" into "2".
func httpVersion(proto string) string {
	switch proto {
	case "HTTP/1.0":
		return "1"
	case "HTTP/1.1":
		return "1.1"
	case "HTTP/2.0", "HTTP/2":
		return "2"
	case "HTTP/3.0", "HTTP/3":
		return "3"
	}
	return "0"
}

func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return host
}

func portOf(addr string) int64 {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(port, 10, 64)
	return n
}

// perSecond is curl's average speed: bytes over the whole transfer time.
func perSecond(n int64, d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64(float64(n) / d.Seconds())
}

// effectiveURL is the URL as curl shows it in url_effective: an empty
// path is "/", the path it requested.
func effectiveURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Path != "" || u.Opaque != "" || u.RawPath != "" {
		return s
	}
	u.Path = "/"
	return u.String()
}
