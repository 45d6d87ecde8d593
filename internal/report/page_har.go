package report

// HAR 1.2 of page loads (httpslab page --har FILE), on probe's HAR model
// (probe_har.go). The median load of each protocol, the one the waterfall
// shows, is one HAR page; its requests are the page's entries, in order
// of discovery:
//
//	page.id                    page_<protocol>, e.g. page_h2
//	pageTimings.onLoad         the load time: the document and every
//	                           discovered resource completed
//	pageTimings.onContentLoad  -1: no script runs, so DOMContentLoaded
//	                           is not known; the browser's DOMContentLoaded
//	                           for a load by Chromium (--engine chromium),
//	                           whose onLoad is its load event
//	entry.connection           the connection's ID in its load, after
//	                           the protocol (h1-3), or for a survey
//	                           (--urls) the page's number and protocol
//	                           (2_h1-3): unique in the file
//	entry.request.httpVersion  as the response said (HTTP/2.0); the
//	                           load's protocol for a request without one
//	entry._priority            Chromium's name of the resource's RFC 9218
//	                           urgency: VeryHigh (0), High (1), Medium
//	                           (2), Low (3), VeryLow (4 to 7); the
//	                           browser's own for a load by Chromium
//	entry._resourceType        document, stylesheet, script, font, image
//	                           or other
//	timings.blocked            from discovery to the first phase: queueing
//	                           for a connection or a stream, also in
//	                           timings._blocked_queueing (Chromium's field)
//	timings.connect, ssl       on the request that opened the connection
//	                           (its DNS is in connect; dns is -1)
//
// page records no headers and no content type: headers are empty,
// headersSize -1 and mimeType empty; bodySize is the body as received.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/probe"
)

// chromiumPriorities are Chromium's names of RFC 9218 urgencies 0 to 4.
var chromiumPriorities = []string{"VeryHigh", "High", "Medium", "Low", "VeryLow"}

// NewPageHAR builds a HAR document of the median load of each protocol.
func NewPageHAR(res *page.Result, creatorVersion string) *HAR {
	h := newHAR(creatorVersion)
	h.Log.Pages = []HARPage{}
	addPageLoads(h, res, "page_")
	return h
}

// NewSurveyHAR builds a HAR document of a survey (page --urls): for each
// page, the median load of each protocol, as HAR pages page_<n>_<protocol>
// (n counting the pages from 1, e.g. page_2_h2).
func NewSurveyHAR(res *page.SurveyResult, creatorVersion string) *HAR {
	h := newHAR(creatorVersion)
	h.Log.Pages = []HARPage{}
	for i, p := range res.Pages {
		if p.Run != nil {
			addPageLoads(h, p.Run, fmt.Sprintf("page_%d_", i+1))
		}
	}
	return h
}

// WriteSurveyHAR writes a survey's median loads as a HAR 1.2 document.
func WriteSurveyHAR(w io.Writer, res *page.SurveyResult, creatorVersion string) error {
	return encodeHAR(w, NewSurveyHAR(res, creatorVersion))
}

// addPageLoads adds the median load of each protocol of res to h, as the
// HAR page prefix+protocol with its entries; connections are named after
// the page id so that they stay unique in the file.
func addPageLoads(h *HAR, res *page.Result, prefix string) {
	for _, pr := range res.Protocols {
		ld := pr.Median
		if ld == nil {
			continue
		}
		id := prefix + string(pr.Protocol)
		timings := HARPageTimings{OnContentLoad: -1, OnLoad: msFloat(ld.Duration)}
		if ld.DOMContentLoaded > 0 {
			timings.OnContentLoad = msFloat(ld.DOMContentLoaded)
		}
		h.Log.Pages = append(h.Log.Pages, HARPage{StartedDateTime: harDate(ld.Started), ID: id, Title: pageTitle(pr, ld), PageTimings: timings})
		for i := range ld.Requests {
			h.Log.Entries = append(h.Log.Entries, pageEntry(ld, &ld.Requests[i], id, strings.TrimPrefix(id, "page_")))
		}
	}
}

// pageTitle names the page of a protocol's median load, and the browser
// that loaded it.
func pageTitle(pr page.ProtocolResult, ld *page.Load) string {
	by := ""
	if ld.Browser != "" {
		by = " in " + ld.Browser
	}
	if len(pr.Loads) == 1 {
		return fmt.Sprintf("%s over %s%s (one load)", pr.URL, pr.Protocol, by)
	}
	return fmt.Sprintf("%s over %s%s (the median of %d loads)", pr.URL, pr.Protocol, by, len(pr.Loads))
}

// WritePageHAR writes the median loads as a HAR 1.2 document, indented.
func WritePageHAR(w io.Writer, res *page.Result, creatorVersion string) error {
	return encodeHAR(w, NewPageHAR(res, creatorVersion))
}

// pageEntry is the HAR entry of one request of ld, built as probe's from
// the request's timeline.
func pageEntry(ld *page.Load, r *page.Request, pageID, connPrefix string) HAREntry {
	tl, queued := timelineOf(ld, r)
	e := harEntry(&tl)
	e.Pageref, e.ResourceType = pageID, r.Kind.String()
	e.Priority = chromiumPriorities[min(r.Kind.Urgency(), len(chromiumPriorities)-1)]
	if r.Priority != "" {
		e.Priority = r.Priority
	}
	e.Request.HeadersSize = -1 // page keeps no request headers to count
	if r.Conn > 0 {
		e.Connection = connPrefix + "-" + strconv.Itoa(r.Conn)
	}
	if queued >= 0 {
		q := msFloat(queued)
		e.Timings.BlockedQueueing = &q
		if len(tl.Phases) == 0 { // it never got a connection
			e.Timings.Blocked = q
		}
	}
	e.Time = e.Timings.sum()
	return e
}

// timelineOf turns a request of a page load into probe's form: phases
// from the request's discovery, the queueing left out (HAR's blocked is
// the time before the first phase), which it returns (-1 when none).
func timelineOf(ld *page.Load, r *page.Request) (probe.Timeline, time.Duration) {
	tl := probe.Timeline{
		URL: r.URL, Method: "GET", Proto: r.Proto, Status: r.Status, Started: ld.Started.Add(r.Start),
		Phases: []probe.Phase{}, Total: r.End - r.Start, Err: r.Error,
	}
	if tl.Proto == "" {
		tl.Proto = map[page.Protocol]string{page.HTTP2: "HTTP/2.0", page.HTTP2C: "HTTP/2.0", page.HTTP3: "HTTP/3.0"}[ld.Protocol]
		if tl.Proto == "" {
			tl.Proto = "HTTP/1.1"
		}
	}
	tl.Bytes.BodySize = r.BodyBytes
	queued := time.Duration(-1)
	for _, ph := range r.Phases {
		if ph.Name == page.PhaseQueued {
			queued = ph.Duration
			continue
		}
		tl.Phases = append(tl.Phases, probe.Phase{Name: ph.Name, Start: ph.Start - r.Start, Duration: ph.Duration})
	}
	return tl, queued
}
