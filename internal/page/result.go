package page

import (
	"time"
)

// Phase names of a request, in the order they happen.
const (
	PhaseQueued   = "queued"   // discovered, waiting for a connection or a stream
	PhaseConnect  = "connect"  // TCP connect of the connection it opened (DNS included)
	PhaseTLS      = "tls"      // TLS handshake of that connection (for QUIC: the whole handshake)
	PhaseSend     = "send"     // the connection is ready; writing the request
	PhaseWait     = "wait"     // last request byte written to first response byte
	PhaseDownload = "download" // first to last response byte
	PhaseProcess  = "process"  // with the modelled browser (Config.ResponseCost, ResponseCostPerMB, ResponseDelay): its processing, delay and queue included
)

// Phase is one phase of a request, as offsets from the load's start.
type Phase struct {
	Name     string        `json:"name"`
	Start    time.Duration `json:"start_ns"`
	Duration time.Duration `json:"duration_ns"`
}

// Load is one load of a page: every request and connection it made.
// Times are offsets from the load's start, on the monotonic clock.
type Load struct {
	Protocol Protocol `json:"protocol"`
	// Engine is what loaded the page: empty for httpslab's own engine,
	// EngineChromium for the browser, whose version Browser is.
	Engine  Engine `json:"engine,omitempty"`
	Browser string `json:"browser,omitempty"`
	// Started is the wall-clock time the load started at, for HAR's
	// dates; the times of the load are offsets from it.
	Started time.Time `json:"started"`
	// Duration is the load time: from the start to the moment the last
	// resource completed (the document and every discovered resource,
	// failed ones included). No script runs and nothing is laid out, so
	// it is the network's part of a browser's load event.
	Duration time.Duration `json:"load_ns"`
	// TTFB is the time to the document's first response byte.
	TTFB time.Duration `json:"ttfb_ns"`
	// Over a browser, Duration is the load event's start, from the
	// Navigation Timing API: the network's part and what scripts and
	// layout added. DOMContentLoaded is that event's start, LCP the
	// largest contentful paint; both zero for httpslab's own engine,
	// which runs no script and paints nothing.
	DOMContentLoaded time.Duration `json:"dom_content_loaded_ns,omitempty"`
	LCP              time.Duration `json:"largest_contentful_paint_ns,omitempty"`
	// BrowserCPU is the CPU time the browser's processes took during a
	// browser load, from just before the navigation to just after the
	// load event, by process type (browser, renderer, gpu, network and
	// Chromium's other utility services): the receiving, parsing, layout
	// and bookkeeping httpslab's own engine does not do. Empty for
	// httpslab's engine.
	BrowserCPU map[string]time.Duration `json:"browser_cpu_ns,omitempty"`
	Requests   []Request                `json:"requests"`
	Conns      []Conn                   `json:"connections"`
	// Failed counts the requests that failed (an error, a status of 400
	// or more); Skipped the resources left out over MaxResources or
	// MaxCSSDepth.
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Handshake and Payload are the bytes on the wire of all connections:
	// up to the end of the TLS or QUIC handshakes, and after.
	Handshake Bytes `json:"handshake_bytes"`
	Payload   Bytes `json:"payload_bytes"`
	// Resumed counts the TLS handshakes that resumed a session.
	Resumed int `json:"resumed"`
	// RTT is the shortest TCP connect time of the load's connections
	// (one round trip), or over QUIC the shortest handshake (one round
	// trip and the handshake's computation); zero when no connection
	// was made.
	RTT time.Duration `json:"rtt_ns"`
	// PhaseTotals adds up each phase over the load's requests: where the
	// requests' time went, queueing for a connection (HTTP/1.1's
	// head-of-line blocking) against handshakes, waiting and transfer.
	// Requests overlap, so the totals exceed the load time.
	PhaseTotals map[string]time.Duration `json:"phase_totals_ns"`
}

// Bytes are bytes on the wire, TCP or UDP payload (TLS records and QUIC
// packets included), read and written by the client.
type Bytes struct {
	Read    int64 `json:"read"`
	Written int64 `json:"written"`
}

// Request is one resource of a load.
type Request struct {
	ID   int    `json:"id"` // 1-based, in order of discovery; the document is 1
	URL  string `json:"url"`
	Kind Kind   `json:"kind"`
	// Priority is the browser's priority of the request (Chromium's
	// names: VeryHigh to VeryLow, the last it set); empty for httpslab's
	// own engine, whose priority follows from Kind.
	Priority string `json:"priority,omitempty"`
	// Initiator is the ID of the document or stylesheet that named it (0
	// for the document).
	Initiator int `json:"initiator"`
	// Conn is the ID of the connection it went on; 0 when none.
	Conn      int           `json:"connection"`
	Proto     string        `json:"proto,omitempty"` // as the response said: HTTP/1.1, HTTP/2.0, HTTP/3.0
	Status    int           `json:"status,omitempty"`
	BodyBytes int64         `json:"body_bytes"` // as received (before any content decoding)
	Start     time.Duration `json:"start_ns"`   // discovered
	End       time.Duration `json:"end_ns"`     // completed or failed
	Phases    []Phase       `json:"phases"`
	Error     string        `json:"error,omitempty"`
}

// Failed reports whether the request failed.
func (r Request) Failed() bool { return r.Error != "" }

// Conn is one connection of a load.
type Conn struct {
	ID     int    `json:"id"`
	Origin string `json:"origin"` // scheme://host:port
	// Anonymous marks a connection for credential-less (CORS anonymous)
	// requests, which browsers keep apart: cross-origin fonts.
	Anonymous  bool          `json:"anonymous,omitempty"`
	Proto      string        `json:"proto"` // ALPN result, or http/1.1 for plain HTTP
	TLSVersion string        `json:"tls_version,omitempty"`
	Resumed    bool          `json:"resumed,omitempty"`
	Start      time.Duration `json:"start_ns"`
	Connected  time.Duration `json:"connected_ns,omitempty"` // TCP connect done; 0 for QUIC
	Ready      time.Duration `json:"ready_ns,omitempty"`     // handshake done, requests may go
	End        time.Duration `json:"end_ns"`                 // last use
	Requests   int           `json:"requests"`
	Error      string        `json:"error,omitempty"`
}
