package report

// HAR 1.2 export (http://www.softwareishard.com/blog/har-12-spec/). Each
// request, every redirect hop and every -n run, becomes one entry, in
// order. Timings are milliseconds with microsecond precision:
//
//	blocked  from the start of the request to its first phase
//	dns      name resolution
//	connect  TCP connect plus TLS: HAR's connect INCLUDES ssl; for HTTP/3
//	         it is the QUIC handshake
//	ssl      the TLS handshake alone
//	send     request written
//	wait     last request byte to first response byte
//	receive  first to last response byte
//
// The HAR of page loads (page_har.go) adds pages, their pageTimings and
// Chromium's custom fields to the same model.
//
// A phase that did not happen is -1 (blocked, dns, connect, ssl, which
// HAR allows to be absent) or 0 (send, wait, receive, which HAR requires
// to be present). time is the sum of the timings other than ssl, as the
// spec defines it; a phase that overlaps the one before it (0-RTT) counts
// only from that one's end, so that time stays the time the request
// took. A failed request has status 0 and its error in the custom field
// _error.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
)

// HAR is a HAR 1.2 document.
type HAR struct {
	Log HARLog `json:"log"`
}

// HARLog is the root of the HAR data.
type HARLog struct {
	Version string     `json:"version"`
	Creator HARCreator `json:"creator"`
	Pages   []HARPage  `json:"pages,omitempty"`
	Entries []HAREntry `json:"entries"`
}

// HARPage is one page load; its entries name it in their pageref.
type HARPage struct {
	StartedDateTime string         `json:"startedDateTime"`
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	PageTimings     HARPageTimings `json:"pageTimings"`
}

// HARPageTimings are the page's events in milliseconds from its start,
// -1 when not known.
type HARPageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// HARCreator names the application that wrote the HAR.
type HARCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// HAREntry is one request and its response.
type HAREntry struct {
	Pageref         string      `json:"pageref,omitempty"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         HARRequest  `json:"request"`
	Response        HARResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         HARTimings  `json:"timings"`
	ServerIPAddress string      `json:"serverIPAddress,omitempty"`
	Connection      string      `json:"connection,omitempty"`
	Error           string      `json:"_error,omitempty"`
	// Priority and ResourceType are Chromium's custom fields, which its
	// DevTools read back: the request's priority (VeryHigh, High,
	// Medium, Low, VeryLow) and what the resource is for the page.
	Priority     string `json:"_priority,omitempty"`
	ResourceType string `json:"_resourceType,omitempty"`
}

// HARRequest is the request of an entry.
type HARRequest struct {
	Method      string         `json:"method"`
	URL         string         `json:"url"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []HARCookie    `json:"cookies"`
	Headers     []HARNameValue `json:"headers"`
	QueryString []HARNameValue `json:"queryString"`
	HeadersSize int64          `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

// HARResponse is the response of an entry.
type HARResponse struct {
	Status      int            `json:"status"`
	StatusText  string         `json:"statusText"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []HARCookie    `json:"cookies"`
	Headers     []HARNameValue `json:"headers"`
	Content     HARContent     `json:"content"`
	RedirectURL string         `json:"redirectURL"`
	HeadersSize int64          `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

// HARNameValue is a header or query parameter.
type HARNameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HARCookie is a cookie sent or set.
type HARCookie struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Path     string `json:"path,omitempty"`
	Domain   string `json:"domain,omitempty"`
	Expires  string `json:"expires,omitempty"`
	HTTPOnly bool   `json:"httpOnly,omitempty"`
	Secure   bool   `json:"secure,omitempty"`
}

// HARContent describes the response body.
type HARContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
}

// HARTimings are the phases of an entry in milliseconds, -1 when a phase
// did not happen.
type HARTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
	// BlockedQueueing is the part of Blocked spent waiting for a free
	// connection or stream (Chromium's custom field); nil when not known.
	BlockedQueueing *float64 `json:"_blocked_queueing,omitempty"`
}

// NewHAR builds a HAR document with one entry per request.
func NewHAR(requests []probe.Timeline, creatorVersion string) *HAR {
	h := newHAR(creatorVersion)
	for i := range requests {
		h.Log.Entries = append(h.Log.Entries, harEntry(&requests[i]))
	}
	return h
}

// newHAR is an empty HAR document written by httpslab.
func newHAR(creatorVersion string) *HAR {
	if creatorVersion == "" {
		creatorVersion = "(devel)"
	}
	return &HAR{Log: HARLog{
		Version: "1.2",
		Creator: HARCreator{Name: "httpslab", Version: creatorVersion},
		Entries: []HAREntry{},
	}}
}

// WriteHAR writes the requests as a HAR 1.2 document, indented.
func WriteHAR(w io.Writer, requests []probe.Timeline, creatorVersion string) error {
	return encodeHAR(w, NewHAR(requests, creatorVersion))
}

func encodeHAR(w io.Writer, h *HAR) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(h); err != nil {
		return fmt.Errorf("writing har: %w", err)
	}
	return nil
}

func harEntry(t *probe.Timeline) HAREntry {
	tm := harTimings(t)
	e := HAREntry{
		StartedDateTime: harDate(t.Started),
		Request:         harRequest(t),
		Response:        harResponse(t),
		Timings:         tm,
		ServerIPAddress: hostOf(t.RemoteAddr),
		Error:           t.Err,
	}
	if p := portOf(t.LocalAddr); p > 0 {
		e.Connection = strconv.FormatInt(p, 10)
	}
	e.Time = tm.sum()
	return e
}

// sum is the entry's time: the sum of the timings other than ssl
// (which connect includes), those that happened.
func (tm HARTimings) sum() float64 {
	total := 0.0
	for _, v := range []float64{tm.Blocked, tm.DNS, tm.Connect, tm.Send, tm.Wait, tm.Receive} {
		if v > 0 {
			total += v
		}
	}
	return roundMs(total)
}

// harDate is HAR's date: ISO 8601 to the millisecond.
func harDate(t time.Time) string {
	return t.Format("2006-01-02T15:04:05.000Z07:00")
}

// harTimings maps the phases onto HAR's timings. HAR's timings follow
// one another and time is their sum, so a phase that overlaps the one
// before it counts only from that one's end: a 0-RTT request is sent and
// answered while the QUIC handshake runs, and its send and wait would
// otherwise be counted twice, making time longer than the request took.
func harTimings(t *probe.Timeline) HARTimings {
	tm := HARTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
	var covered time.Duration // where the timings so far end
	if len(t.Phases) > 0 {
		covered = t.Phases[0].Start
		tm.Blocked = msFloat(covered)
	}
	// next is the part of the named phase after covered, in ms.
	next := func(name string) (float64, bool) {
		ph, ok := t.Phase(name)
		if !ok {
			return 0, false
		}
		from, to := max(ph.Start, covered), ph.Start+ph.Duration
		covered = max(covered, to)
		return msFloat(max(to-from, 0)), true
	}
	if d, ok := next(probe.PhaseDNS); ok {
		tm.DNS = d
	}
	tcp, hasTCP := next(probe.PhaseConnect)
	hs, hasTLS := next(probe.PhaseTLS)
	switch {
	case hasTCP && hasTLS:
		tm.Connect, tm.SSL = roundMs(tcp+hs), hs
	case hasTCP:
		tm.Connect = tcp
	case hasTLS: // QUIC: the handshake is the connection's setup
		tm.Connect, tm.SSL = hs, hs
	}
	tm.Send, _ = next(probe.PhaseSend)
	tm.Wait, _ = next(probe.PhaseWait)
	tm.Receive, _ = next(probe.PhaseDownload)
	return tm
}

func harRequest(t *probe.Timeline) HARRequest {
	r := HARRequest{
		Method:      t.Method,
		URL:         t.URL,
		HTTPVersion: t.Proto,
		Cookies:     []HARCookie{},
		Headers:     harHeaders(t.RequestHeader),
		QueryString: []HARNameValue{},
		HeadersSize: -1,
		BodySize:    uploadSize(t),
	}
	if u, err := url.Parse(t.URL); err == nil {
		q := u.Query()
		for _, k := range slices.Sorted(maps.Keys(q)) {
			for _, v := range q[k] {
				r.QueryString = append(r.QueryString, HARNameValue{Name: k, Value: v})
			}
		}
	}
	if t.Proto == "HTTP/1.1" || t.Proto == "HTTP/1.0" {
		r.HeadersSize = requestSize(t) - r.BodySize
	}
	for _, c := range (&http.Request{Header: http.Header(t.RequestHeader)}).Cookies() {
		r.Cookies = append(r.Cookies, HARCookie{Name: c.Name, Value: c.Value})
	}
	return r
}

func harResponse(t *probe.Timeline) HARResponse {
	r := HARResponse{
		Status:      t.Status,
		StatusText:  http.StatusText(t.Status),
		HTTPVersion: t.Proto,
		Cookies:     []HARCookie{},
		Headers:     harHeaders(t.Header),
		Content:     HARContent{Size: t.Bytes.BodySize, MimeType: firstOf(t.Header, "Content-Type")},
		RedirectURL: firstOf(t.Header, "Location"),
		HeadersSize: -1,
		BodySize:    -1,
	}
	if t.Status == 0 {
		return r
	}
	if t.Bytes.HeaderSize > 0 {
		r.HeadersSize = t.Bytes.HeaderSize
	}
	r.BodySize = t.Bytes.BodySize
	for _, c := range (&http.Response{Header: http.Header(t.Header)}).Cookies() {
		hc := HARCookie{Name: c.Name, Value: c.Value, Path: c.Path, Domain: c.Domain, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if !c.Expires.IsZero() {
			hc.Expires = c.Expires.UTC().Format(time.RFC3339)
		}
		r.Cookies = append(r.Cookies, hc)
	}
	return r
}

// harHeaders flattens a header map, sorted by name for stable output.
func harHeaders(h map[string][]string) []HARNameValue {
	out := []HARNameValue{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, HARNameValue{Name: k, Value: v})
		}
	}
	return out
}

// msFloat is d in milliseconds, to the microsecond.
func msFloat(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

func roundMs(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}
