package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
)

// harField is one field of a HAR 1.2 object: its JSON type ("string",
// "number", "boolean", "object", "array"), whether the spec requires it,
// and for objects and arrays of objects the spec of their members.
type harField struct {
	typ      string
	required bool
	of       string
}

// harSpec is the structure of HAR 1.2 (softwareishard.com/blog/har-12-spec),
// the objects httpslab writes, with every field the spec defines.
var harSpec = map[string]map[string]harField{
	"root": {"log": {"object", true, "log"}},
	"log": {
		"version": {"string", true, ""}, "creator": {"object", true, "creator"}, "browser": {"object", false, "creator"},
		"pages": {"array", false, "page"}, "entries": {"array", true, "entry"}, "comment": {"string", false, ""},
	},
	"creator": {"name": {"string", true, ""}, "version": {"string", true, ""}, "comment": {"string", false, ""}},
	"page": {
		"startedDateTime": {"string", true, ""}, "id": {"string", true, ""}, "title": {"string", true, ""},
		"pageTimings": {"object", true, "pageTimings"}, "comment": {"string", false, ""},
	},
	"pageTimings": {"onContentLoad": {"number", false, ""}, "onLoad": {"number", false, ""}, "comment": {"string", false, ""}},
	"entry": {
		"pageref": {"string", false, ""}, "startedDateTime": {"string", true, ""}, "time": {"number", true, ""},
		"request": {"object", true, "request"}, "response": {"object", true, "response"}, "cache": {"object", true, "cache"},
		"timings": {"object", true, "timings"}, "serverIPAddress": {"string", false, ""}, "connection": {"string", false, ""},
		"comment": {"string", false, ""},
	},
	"request": {
		"method": {"string", true, ""}, "url": {"string", true, ""}, "httpVersion": {"string", true, ""},
		"cookies": {"array", true, "cookie"}, "headers": {"array", true, "nameValue"}, "queryString": {"array", true, "nameValue"},
		"postData": {"object", false, ""}, "headersSize": {"number", true, ""}, "bodySize": {"number", true, ""},
		"comment": {"string", false, ""},
	},
	"response": {
		"status": {"number", true, ""}, "statusText": {"string", true, ""}, "httpVersion": {"string", true, ""},
		"cookies": {"array", true, "cookie"}, "headers": {"array", true, "nameValue"}, "content": {"object", true, "content"},
		"redirectURL": {"string", true, ""}, "headersSize": {"number", true, ""}, "bodySize": {"number", true, ""},
		"comment": {"string", false, ""},
	},
	"cookie": {
		"name": {"string", true, ""}, "value": {"string", true, ""}, "path": {"string", false, ""}, "domain": {"string", false, ""},
		"expires": {"string", false, ""}, "httpOnly": {"boolean", false, ""}, "secure": {"boolean", false, ""}, "comment": {"string", false, ""},
	},
	"nameValue": {"name": {"string", true, ""}, "value": {"string", true, ""}, "comment": {"string", false, ""}},
	"content": {
		"size": {"number", true, ""}, "compression": {"number", false, ""}, "mimeType": {"string", true, ""},
		"text": {"string", false, ""}, "encoding": {"string", false, ""}, "comment": {"string", false, ""},
	},
	"cache": {"beforeRequest": {"object", false, ""}, "afterRequest": {"object", false, ""}, "comment": {"string", false, ""}},
	"timings": {
		"blocked": {"number", false, ""}, "dns": {"number", false, ""}, "connect": {"number", false, ""},
		"send": {"number", true, ""}, "wait": {"number", true, ""}, "receive": {"number", true, ""},
		"ssl": {"number", false, ""}, "comment": {"string", false, ""},
	},
}

// checkHAR checks v, decoded from JSON, against the object spec name and
// returns every violation. Fields the spec does not define must be
// custom fields, whose names start with an underscore.
func checkHAR(v any, name, path string) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{path + ": not an object"}
	}
	var errs []string
	spec := harSpec[name]
	for field, f := range spec {
		val, present := obj[field]
		if !present {
			if f.required {
				errs = append(errs, fmt.Sprintf("%s.%s: required field missing", path, field))
			}
			continue
		}
		errs = append(errs, checkHARValue(val, f, path+"."+field)...)
	}
	for field := range obj {
		if _, known := spec[field]; !known && !strings.HasPrefix(field, "_") {
			errs = append(errs, fmt.Sprintf("%s.%s: not a HAR 1.2 field and not a custom _field", path, field))
		}
	}
	return errs
}

func checkHARValue(val any, f harField, path string) []string {
	ok := false
	switch f.typ {
	case "string":
		_, ok = val.(string)
	case "number":
		_, ok = val.(float64)
	case "boolean":
		_, ok = val.(bool)
	case "object":
		_, ok = val.(map[string]any)
	case "array":
		_, ok = val.([]any)
	}
	if !ok {
		return []string{fmt.Sprintf("%s: %T, want %s", path, val, f.typ)}
	}
	var errs []string
	switch {
	case f.typ == "object" && f.of != "":
		errs = append(errs, checkHAR(val, f.of, path)...)
	case f.typ == "array" && f.of != "":
		for i, el := range val.([]any) {
			errs = append(errs, checkHAR(el, f.of, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return errs
}

// checkHARRules checks the spec's rules beyond types: dates in ISO 8601,
// timings -1 or more (send, wait, receive never -1), time the sum of the
// timings other than ssl, connect including ssl.
func checkHARRules(entries []any) []string {
	var errs []string
	for i, e := range entries {
		entry := e.(map[string]any)
		path := fmt.Sprintf("entries[%d]", i)
		if _, err := time.Parse(time.RFC3339Nano, entry["startedDateTime"].(string)); err != nil {
			errs = append(errs, fmt.Sprintf("%s.startedDateTime: %v", path, err))
		}
		tm := entry["timings"].(map[string]any)
		sum := 0.0
		for k, v := range tm {
			if strings.HasPrefix(k, "_") {
				continue // custom fields are not HAR's timings
			}
			n := v.(float64)
			lo := -1.0
			if k == "send" || k == "wait" || k == "receive" {
				lo = 0
			}
			if n < lo {
				errs = append(errs, fmt.Sprintf("%s.timings.%s = %v; want >= %v", path, k, n, lo))
			}
			if k != "ssl" && n > 0 {
				sum += n
			}
		}
		if got := entry["time"].(float64); math.Abs(got-sum) > 0.0015 {
			errs = append(errs, fmt.Sprintf("%s.time = %v; want the sum of timings %v", path, got, sum))
		}
		if ssl, conn := tm["ssl"].(float64), tm["connect"].(float64); ssl >= 0 && conn < ssl {
			errs = append(errs, fmt.Sprintf("%s: connect %v does not include ssl %v", path, conn, ssl))
		}
	}
	return errs
}

func TestHARStructure(t *testing.T) {
	requests := append(redirectHops(), h2Fresh(), h3(), reused(), refused())
	var buf bytes.Buffer
	if err := WriteHAR(&buf, requests, "v0.1.0"); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "probe.har", buf.Bytes())
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("HAR is not JSON: %v", err)
	}
	errs := checkHAR(doc, "root", "")
	if len(errs) == 0 {
		errs = checkHARRules(doc["log"].(map[string]any)["entries"].([]any))
	}
	for _, e := range errs {
		t.Error(e)
	}
}

// TestHARCheckerCatches makes sure the structural check fails on broken
// documents, so that a passing check means something.
func TestHARCheckerCatches(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHAR(&buf, []probe.Timeline{h2Fresh()}, "v1"); err != nil {
		t.Fatal(err)
	}
	breakages := []func(entry map[string]any){
		func(e map[string]any) { delete(e, "cache") },
		func(e map[string]any) { e["time"] = "12" },
		func(e map[string]any) { e["request"].(map[string]any)["headersSize"] = nil },
		func(e map[string]any) { delete(e["response"].(map[string]any)["content"].(map[string]any), "mimeType") },
		func(e map[string]any) { e["timings"].(map[string]any)["send"] = -1.0 },
		func(e map[string]any) { e["timings"].(map[string]any)["connect"] = 0.5 },
		func(e map[string]any) { e["time"] = 1.0 },
		func(e map[string]any) { e["extra"] = 1.0 },
	}
	for i, breakIt := range breakages {
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		entries := doc["log"].(map[string]any)["entries"].([]any)
		breakIt(entries[0].(map[string]any))
		errs := checkHAR(doc, "root", "")
		if len(errs) == 0 {
			errs = checkHARRules(entries)
		}
		if len(errs) == 0 {
			t.Errorf("breakage %d passed the HAR check; want a violation", i)
		}
	}
}

func TestHARTimings(t *testing.T) {
	tests := []struct {
		name string
		tl   probe.Timeline
		want HARTimings
	}{
		{"h2", h2Fresh(), HARTimings{Blocked: 0.01, DNS: 0.1, Connect: 2.01, SSL: 1.01, Send: 0.05, Wait: 1.3, Receive: 0.2}},
		{"plain", redirectHops()[0], HARTimings{Blocked: 0.005, DNS: 0.045, Connect: 0.5, SSL: -1, Send: 0.03, Wait: 1, Receive: 0.05}},
		{"h3", h3(), HARTimings{Blocked: 0.02, DNS: -1, Connect: 1, SSL: 1, Send: 0.01, Wait: 1, Receive: 0.06}},
		{"reused", reused(), HARTimings{Blocked: 0.005, DNS: -1, Connect: -1, SSL: -1, Send: 0.025, Wait: 1, Receive: 0.07}},
		{"refused", refused(), HARTimings{Blocked: 0.005, DNS: 0.04, Connect: -1, SSL: -1}},
		// Sent and answered during the handshake: send and wait count
		// from the handshake's end only.
		{"0-RTT", zeroRTT(), HARTimings{Blocked: 0.02, DNS: -1, Connect: 2.53, SSL: 2.53, Send: 0, Wait: 0.02, Receive: 0.02}},
	}
	for _, tt := range tests {
		if got := harTimings(&tt.tl); got != tt.want {
			t.Errorf("harTimings(%s) = %+v; want %+v", tt.name, got, tt.want)
		}
	}
	// time, the sum of the timings, is what the request took.
	if e, tl := harEntry(ptr(zeroRTT())), zeroRTT(); e.Time != msFloat(tl.Total) {
		t.Errorf("0-RTT entry time = %v ms; want the request's %v ms", e.Time, msFloat(tl.Total))
	}
}

func ptr[T any](v T) *T { return &v }

// zeroRTT is an HTTP/3 request sent as 0-RTT early data: written 0.4 ms
// into a 2.53 ms handshake and answered 20 µs after it ended.
func zeroRTT() probe.Timeline {
	tl := h3()
	tl.Events = probe.Events{Start: at(0), TLSStart: at(20), TLSDone: at(2550),
		GotConn: at(430), WroteRequest: at(450), FirstByte: at(2570), BodyDone: at(2590)}
	tl.TLS.EarlyData, tl.TLS.Resumed = true, true
	return timeline(tl)
}

func TestHAREntryFields(t *testing.T) {
	tl := h2Fresh()
	e := harEntry(&tl)
	if e.ServerIPAddress != "127.0.0.1" || e.Connection != "50000" {
		t.Errorf("serverIPAddress, connection = %q, %q; want 127.0.0.1, 50000", e.ServerIPAddress, e.Connection)
	}
	if len(e.Request.QueryString) != 1 || e.Request.QueryString[0] != (HARNameValue{"x", "1"}) {
		t.Errorf("queryString = %v; want [x=1]", e.Request.QueryString)
	}
	c := e.Response.Cookies
	if len(c) != 1 || c[0].Name != "session" || !c[0].HTTPOnly || !c[0].Secure {
		t.Errorf("response cookies = %+v; want session, HttpOnly, Secure", c)
	}
	if e.Response.StatusText != "OK" || e.Response.Content.MimeType != "application/octet-stream" || e.Response.BodySize != 1000 {
		t.Errorf("response = %+v; want 200 OK, octet-stream, 1000 bytes", e.Response)
	}
	redirect := redirectHops()[0]
	if got := harEntry(&redirect).Response.RedirectURL; got != "https://localhost:8443/final" {
		t.Errorf("redirectURL = %q; want https://localhost:8443/final", got)
	}
	failed := refused()
	if fe := harEntry(&failed); fe.Response.Status != 0 || fe.Error == "" || fe.Response.BodySize != -1 {
		t.Errorf("failed entry status %d, _error %q, bodySize %d; want 0, the error, -1", fe.Response.Status, fe.Error, fe.Response.BodySize)
	}
}

func TestHARRequestBody(t *testing.T) {
	tl := post()
	r := harEntry(&tl).Request
	if r.BodySize != 1000 || r.Method != "POST" {
		t.Errorf("request %s bodySize %d; want POST 1000", r.Method, r.BodySize)
	}
	var host string
	for _, h := range r.Headers {
		if h.Name == "Host" {
			host = h.Value
		}
	}
	if host != "httpslab.test" {
		t.Errorf("request Host header %q; want the -H value httpslab.test", host)
	}
}
