package page

import (
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
)

// MaxBrowserRequests bounds the requests of one browser load that are
// kept: a page whose script fetches without end is cut there.
const MaxBrowserRequests = 100000

// netLog is the browser's network events of one load, by request.
type netLog struct {
	mu    sync.Mutex
	order []network.RequestID
	reqs  map[network.RequestID]*browserRequest
}

// browserRequest is one request as the events told it. Times are
// Chromium's monotonic clock, in seconds.
type browserRequest struct {
	url, kind, priority string
	sent, end           float64
	resp                *network.Response
	bytes               float64 // encoded body, as received
	failed              string
	finished            bool
}

func newNetLog() *netLog { return &netLog{reqs: map[network.RequestID]*browserRequest{}} }

// event records one DevTools event; it runs on chromedp's goroutine.
func (n *netLog) event(ev any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.Request == nil || len(n.order) >= MaxBrowserRequests {
			return
		}
		if u, err := url.Parse(ev.Request.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return // data:, blob:, about:
		}
		if _, ok := n.reqs[ev.RequestID]; !ok {
			n.order = append(n.order, ev.RequestID)
		}
		// A redirect sends the same ID again: the request is the last hop.
		n.reqs[ev.RequestID] = &browserRequest{url: ev.Request.URL, kind: string(ev.Type),
			priority: string(ev.Request.InitialPriority), sent: ev.Timestamp.Float64()}
	case *network.EventResourceChangedPriority:
		if r := n.reqs[ev.RequestID]; r != nil {
			r.priority = string(ev.NewPriority)
		}
	case *network.EventResponseReceived:
		if r := n.reqs[ev.RequestID]; r != nil {
			r.resp = ev.Response
		}
	case *network.EventLoadingFinished:
		if r := n.reqs[ev.RequestID]; r != nil {
			r.end, r.finished = ev.Timestamp.Float64(), true
			r.bytes = ev.EncodedBodyLength
			if r.bytes == 0 && r.resp != nil {
				r.bytes = ev.EncodedDataLength - r.resp.EncodedDataLength
			}
		}
	case *network.EventLoadingFailed:
		if r := n.reqs[ev.RequestID]; r != nil {
			r.end, r.failed = ev.Timestamp.Float64(), ev.ErrorText
			if ev.Canceled {
				r.failed += " (canceled)"
			}
		}
	}
}

// kinds map Chromium's resource types to page's kinds.
var kinds = map[network.ResourceType]Kind{
	network.ResourceTypeDocument: KindDocument, network.ResourceTypeStylesheet: KindStylesheet,
	network.ResourceTypeScript: KindScript, network.ResourceTypeFont: KindFont, network.ResourceTypeImage: KindImage,
}

// protoNames are the response's protocol as Go's HTTP clients say it.
var protoNames = map[string]string{"http/1.1": "HTTP/1.1", "http/1.0": "HTTP/1.0", "h2": "HTTP/2.0", "h3": "HTTP/3.0"}

// load builds the Load from the events: times from the navigation's
// start, which is fetchStart ms before the document's request. The
// requests sent after the load event are left out. started
// is the wall-clock time of the navigation, for HAR's dates.
func (n *netLog) load(p Protocol, started time.Time, nav navTiming) *Load {
	n.mu.Lock()
	defer n.mu.Unlock()
	ld := &Load{Protocol: p, Started: started, Requests: []Request{}, Conns: []Conn{}, PhaseTotals: map[string]time.Duration{},
		Duration: msDuration(nav.Load), DOMContentLoaded: msDuration(nav.DOMContentLoaded), LCP: msDuration(nav.LCP)}
	if len(n.order) == 0 {
		return ld
	}
	zero := n.reqs[n.order[0]].sent - nav.FetchStart/1000
	at := func(sec float64) time.Duration { return time.Duration((sec - zero) * float64(time.Second)) }
	conns := map[float64]int{} // Chromium's connection ID to its index in ld.Conns
	for _, id := range n.order {
		br := n.reqs[id]
		r := br.request(len(ld.Requests)+1, at)
		if r.ID > 1 && r.Start > ld.Duration {
			// Sent after the load event: not the page's load (the
			// browser's own /favicon.ico, or a script's later fetch).
			continue
		}
		if r.Failed() {
			ld.Failed++
		}
		if br.resp != nil && (br.resp.ConnectionID != 0 || r.Proto != "") {
			i, ok := conns[br.resp.ConnectionID]
			if !ok {
				u, _ := url.Parse(br.url)
				c := Conn{ID: len(ld.Conns) + 1, Origin: u.Scheme + "://" + u.Host, Proto: br.resp.Protocol, Start: r.Start}
				if sd := br.resp.SecurityDetails; sd != nil {
					c.TLSVersion = sd.Protocol
				}
				i = len(ld.Conns)
				ld.Conns = append(ld.Conns, c)
				conns[br.resp.ConnectionID] = i
			}
			c := &ld.Conns[i]
			r.Conn = c.ID
			c.noteRequest(r)
			ld.Payload.Read += int64(br.bytes)
			if c.rtt() > 0 && (ld.RTT == 0 || c.rtt() < ld.RTT) {
				ld.RTT = c.rtt()
			}
		}
		for _, ph := range r.Phases {
			ld.PhaseTotals[ph.Name] += ph.Duration
		}
		ld.Requests = append(ld.Requests, r)
	}
	if doc := ld.Requests[0]; doc.Status > 0 {
		// The first byte ends the wait and starts the download; either
		// may be absent when Chromium gives them the same time.
		for _, ph := range doc.Phases {
			switch ph.Name {
			case PhaseWait:
				ld.TTFB = ph.Start + ph.Duration
			case PhaseDownload:
				ld.TTFB = ph.Start
			}
		}
	}
	return ld
}

// noteRequest widens the connection's times with a request on it: its
// connect and TLS phases (on the request that opened it) and its end.
func (c *Conn) noteRequest(r Request) {
	c.Requests++
	c.End = max(c.End, r.End)
	for _, ph := range r.Phases {
		switch ph.Name {
		case PhaseConnect:
			c.Start, c.Connected, c.Ready = ph.Start, ph.Start+ph.Duration, ph.Start+ph.Duration
		case PhaseTLS:
			c.Ready = ph.Start + ph.Duration
		}
	}
}

// rtt is the connection's TCP connect time (for QUIC, Chromium's connect
// phase: the whole handshake); zero when not known.
func (c *Conn) rtt() time.Duration {
	if c.Connected > c.Start {
		return c.Connected - c.Start
	}
	return 0
}

// request is the page's form of one browser request, ID id.
func (br *browserRequest) request(id int, at func(float64) time.Duration) Request {
	r := Request{ID: id, URL: br.url, Kind: KindOther, Priority: br.priority, Start: at(br.sent), Phases: []Phase{}}
	if k, ok := kinds[network.ResourceType(br.kind)]; ok {
		r.Kind = k
	}
	if id > 1 {
		r.Initiator = 1
	}
	r.End = r.Start
	if br.end > 0 {
		r.End = at(br.end)
	}
	if br.resp != nil {
		r.Status = int(br.resp.Status)
		r.Proto = protoNames[br.resp.Protocol]
		r.BodyBytes = int64(br.bytes)
		if tm := br.resp.Timing; tm != nil {
			r.Phases = browserPhases(r, tm, at)
		}
	}
	switch {
	case br.failed != "":
		r.Error = br.failed
	case !br.finished:
		r.Error = "not completed when the load event fired"
	case r.Status >= 400:
		r.Error = fmt.Sprintf("status %d", r.Status)
	}
	return r
}

// browserPhases turns Chromium's resource timing into page's phases:
// queued from the request's creation to its first network step (Chromium's
// queueing and stalled), connect from connectStart to the TLS handshake
// (connectEnd includes it), tls, send, wait to the first header byte and
// download to the end. A step Chromium did not take (-1) is absent.
func browserPhases(r Request, tm *network.ResourceTiming, at func(float64) time.Duration) []Phase {
	ms := func(off float64) time.Duration {
		return at(tm.RequestTime + off/1000)
	}
	var out []Phase
	add := func(name string, from, to time.Duration) {
		if to > from {
			out = append(out, Phase{Name: name, Start: from, Duration: to - from})
		}
	}
	first := tm.SendStart
	if tm.ConnectStart >= 0 {
		first = tm.ConnectStart
	}
	add(PhaseQueued, r.Start, ms(first))
	if tm.ConnectStart >= 0 {
		tcpEnd := tm.ConnectEnd
		if tm.SslStart >= 0 {
			tcpEnd = tm.SslStart
			add(PhaseConnect, ms(tm.ConnectStart), ms(tcpEnd))
			add(PhaseTLS, ms(tm.SslStart), ms(tm.SslEnd))
		} else {
			add(PhaseConnect, ms(tm.ConnectStart), ms(tcpEnd))
		}
	}
	add(PhaseSend, ms(tm.SendStart), ms(tm.SendEnd))
	firstByte := tm.ReceiveHeadersStart
	if firstByte <= 0 {
		firstByte = tm.ReceiveHeadersEnd
	}
	add(PhaseWait, ms(tm.SendEnd), ms(firstByte))
	add(PhaseDownload, ms(firstByte), r.End)
	return out
}

// check fails a load in which a response came over another protocol
// than the load's, as httpslab's own engine does.
func (n *netLog) check(p Protocol) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	want := map[Protocol]string{HTTP: "http/1.1", HTTP1: "http/1.1", HTTP2: "h2", HTTP3: "h3"}[p]
	for _, id := range n.order {
		br := n.reqs[id]
		if br.resp != nil && br.resp.Protocol != want {
			return fmt.Errorf("%w: %s came over %s in a load over %s", ErrProtocol, br.url, br.resp.Protocol, p)
		}
	}
	if len(n.order) == 0 || n.reqs[n.order[0]].resp == nil {
		return fmt.Errorf("%w: the browser got no response", ErrDocument)
	}
	return nil
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
