package report

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestPageHARGolden pins the HAR of page loads: one page per protocol's
// median load, its entries with their connection, priority, resource
// type and queueing.
func TestPageHARGolden(t *testing.T) {
	started := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	res := &page.Result{URL: "https://a.test/page", Protocols: []page.ProtocolResult{
		{Protocol: page.HTTP1, URL: "https://a.test/page", Loads: []float64{60, 61, 70}, Median: pageLoad(page.HTTP1, 2)},
		{Protocol: page.HTTP2, URL: "https://a.test/page", Loads: []float64{50}, Median: pageLoad(page.HTTP2, 1)},
		{Protocol: page.HTTP3, Dropped: "failed in the warm-up"},
	}}
	for _, pr := range res.Protocols[:2] {
		pr.Median.Started = started
		r := &pr.Median.Requests[0]
		r.Kind = page.KindDocument
		r.Phases = append([]page.Phase{{Name: page.PhaseQueued, Start: r.Start, Duration: 0}}, r.Phases...)
		r = &pr.Median.Requests[1]
		r.Phases = []page.Phase{{Name: page.PhaseQueued, Start: r.Start, Duration: r.End - r.Start}}
		r.Conn, r.Status, r.Proto, r.Error = 0, 0, "", "connecting to https://a.test:443: refused"
	}
	var buf bytes.Buffer
	if err := WritePageHAR(&buf, res, "v0.1.0"); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "page.har", buf.Bytes())
	checkHARDoc(t, buf.Bytes())
}

// checkHARDoc checks a HAR document against HAR 1.2 and its rules and
// returns it decoded.
func checkHARDoc(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("HAR is not JSON: %v", err)
	}
	errs := checkHAR(doc, "root", "")
	if len(errs) == 0 {
		errs = checkHARRules(doc["log"].(map[string]any)["entries"].([]any))
	}
	for _, e := range errs {
		t.Error(e)
	}
	return doc
}

// TestPageHARLoads writes the HAR of real loads of a styled page over
// HTTP/1.1 and HTTP/2 and checks what browser tools read from it: a page
// per protocol whose onLoad is the median load's time, every request as
// an entry of its page, HTTP/1.1's requests on at most six connections
// and HTTP/2's on one, the document's priority above the images', and
// queueing that is the blocked time.
func TestPageHARLoads(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	c := page.Compare{
		Load:      page.Config{URL: srv.HTTPSURL + "/page/styled", TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}},
		Protocols: []page.Protocol{page.HTTP1, page.HTTP2},
		Rounds:    1,
	}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePageHAR(&buf, res, ""); err != nil {
		t.Fatal(err)
	}
	doc := checkHARDoc(t, buf.Bytes())
	var h HAR
	if err := json.Unmarshal(buf.Bytes(), &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Log.Pages) != 2 || len(h.Log.Entries) != len(res.Protocols[0].Median.Requests)+len(res.Protocols[1].Median.Requests) {
		t.Fatalf("%d pages, %d entries; want 2 and every request of the median loads", len(h.Log.Pages), len(h.Log.Entries))
	}
	for i, pg := range h.Log.Pages {
		ld := res.Protocols[i].Median
		if pg.ID != "page_"+string(ld.Protocol) || pg.PageTimings.OnContentLoad != -1 || math.Abs(pg.PageTimings.OnLoad-msFloat(ld.Duration)) > 0.001 {
			t.Errorf("page %d: %+v; want page_%s, onContentLoad -1, onLoad %v", i, pg, ld.Protocol, msFloat(ld.Duration))
		}
	}
	conns := map[string]map[string]bool{"page_h1": {}, "page_h2": {}}
	for _, e := range h.Log.Entries {
		conns[e.Pageref][e.Connection] = true
		q := e.Timings.BlockedQueueing
		if q == nil || *q < 0 || math.Abs(*q-e.Timings.Blocked) > 0.001 || e.Request.HTTPVersion != e.Response.HTTPVersion || e.Response.Status != 200 {
			t.Errorf("entry %s on %s: queueing %v, blocked %v, %s / %s, status %d; want queueing = blocked, one protocol, 200",
				e.Request.URL, e.Pageref, q, e.Timings.Blocked, e.Request.HTTPVersion, e.Response.HTTPVersion, e.Response.Status)
		}
		want := map[string]string{"document": "VeryHigh", "stylesheet": "VeryHigh", "font": "VeryHigh", "script": "High", "image": "Low", "other": "Low"}[e.ResourceType]
		if e.Priority != want || want == "" {
			t.Errorf("entry %s (%s): priority %q; want %q", e.Request.URL, e.ResourceType, e.Priority, want)
		}
	}
	if n1, n2 := len(conns["page_h1"]), len(conns["page_h2"]); n1 < 1 || n1 > 6 || n2 != 1 || conns["page_h2"]["h2-1"] != true {
		t.Errorf("connections %v; want 1 to 6 over h1 (on loopback the first can take them all), h2-1 alone over h2", conns)
	}
	if doc["log"].(map[string]any)["entries"].([]any)[0].(map[string]any)["pageref"] != "page_h1" {
		t.Error("the first entry is not the h1 page's")
	}
}
