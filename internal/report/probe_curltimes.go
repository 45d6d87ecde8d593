package report

import (
	"net/url"
	"strconv"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
)

// curlTimes are curl's cumulative times of one request, each from the
// start of the request to an event.
type curlTimes struct {
	namelookup    time.Duration // name resolved
	connect       time.Duration // TCP (or QUIC) connected
	appconnect    time.Duration // TLS handshake done
	pretransfer   time.Duration // about to send the request
	posttransfer  time.Duration // request sent
	starttransfer time.Duration // first response byte
}

func (a curlTimes) add(b curlTimes) curlTimes {
	return curlTimes{
		namelookup:    a.namelookup + b.namelookup,
		connect:       a.connect + b.connect,
		appconnect:    a.appconnect + b.appconnect,
		pretransfer:   a.pretransfer + b.pretransfer,
		posttransfer:  a.posttransfer + b.posttransfer,
		starttransfer: a.starttransfer + b.starttransfer,
	}
}

// hopTimes derives curl's view of one request from its phases, with
// curl's conventions: an event that was skipped because a later one
// happened anyway (no DNS for an IP literal, no connect on a reused
// connection) takes the time of the step before it, and an event that
// never came because the request failed earlier is 0. time_appconnect is
// 0 for plain HTTP.
func hopTimes(t *probe.Timeline) curlTimes {
	dns, hasDNS := t.Phase(probe.PhaseDNS)
	tcp, hasTCP := t.Phase(probe.PhaseConnect)
	hs, hasTLS := t.Phase(probe.PhaseTLS)
	send, hasSend := t.Phase(probe.PhaseSend)
	wait, hasWait := t.Phase(probe.PhaseWait)
	var c curlTimes
	switch {
	case hasDNS:
		c.namelookup = end(dns)
	case hasTCP:
		c.namelookup = tcp.Start
	case hasTLS:
		c.namelookup = hs.Start
	case hasSend:
		c.namelookup = send.Start
	case len(t.Dials) > 0:
		c.namelookup = t.Dials[0].Start // no connection, but the name was known
	}
	switch {
	case hasTCP:
		c.connect = end(tcp)
	case hasTLS && !t.Reused:
		// QUIC: transport and TLS are one handshake.
		c.connect = end(hs)
	case hasSend:
		c.connect = c.namelookup
	}
	switch {
	case hasTLS:
		c.appconnect = end(hs)
	case t.TLS != nil && hasSend:
		c.appconnect = c.connect
	}
	if hasSend {
		c.pretransfer = send.Start
		c.posttransfer = end(send)
	}
	if hasWait {
		c.starttransfer = end(wait)
	}
	return c
}

func end(p probe.Phase) time.Duration { return p.Start + p.Duration }

// redirectTime is time_redirect: from the start of the first hop to the
// start of the final one. Without wall-clock starts it falls back to the
// sum of the earlier hops' totals.
func redirectTime(hops []probe.Timeline) time.Duration {
	if len(hops) < 2 {
		return 0
	}
	first, last := hops[0].Started, hops[len(hops)-1].Started
	if !first.IsZero() && !last.IsZero() && last.After(first) {
		return last.Sub(first)
	}
	var d time.Duration
	for _, h := range hops[:len(hops)-1] {
		d += h.Total
	}
	return d
}

// requestSize is the size of the request head as HTTP/1.1 writes it
// (request line, headers, blank line) plus the body, from the recorded
// request headers; curl counts HTTP/2 and HTTP/3 requests the same way,
// with "HTTP/2" or "HTTP/3" ending the request line. A request that was
// never sent (the connection or its handshake failed) counts 0, as in
// curl.
func requestSize(t *probe.Timeline) int64 {
	if t.Method == "" {
		return 0
	}
	if _, sent := t.Phase(probe.PhaseSend); !sent {
		return 0
	}
	target, host := "/", ""
	if u, err := url.Parse(t.URL); err == nil {
		target, host = u.RequestURI(), u.Host
	}
	// curl counts the body of an HTTP/1.1 request, which it sends with
	// the head, and not that of an HTTP/2 or HTTP/3 one, sent in frames
	// of its own.
	version, body := " HTTP/1.1\r\n", uploadSize(t)
	switch httpVersion(t.Proto) {
	case "2":
		version, body = " HTTP/2\r\n", 0
	case "3":
		version, body = " HTTP/3\r\n", 0
	}
	n := int64(len(t.Method) + 1 + len(target) + len(version))
	if firstOf(t.RequestHeader, "Host") == "" && host != "" {
		n += int64(len("Host: ") + len(host) + 2)
	}
	for k, vs := range t.RequestHeader {
		for _, v := range vs {
			n += int64(len(k) + 2 + len(v) + 2)
		}
	}
	// probe records the Content-Length net/http sent once a response
	// came; for a request that got none, the same rule says whether one
	// went.
	if firstOf(t.RequestHeader, "Content-Length") == "" && probe.SendsContentLength(t.Method, uploadSize(t), t.Proto == "HTTP/1.1") {
		n += int64(len("Content-Length: ") + len(strconv.FormatInt(uploadSize(t), 10)) + 2)
	}
	return n + 2 + body
}

// uploadSize is the size of the request body sent.
func uploadSize(t *probe.Timeline) int64 {
	return max(t.Bytes.RequestBodySize, 0)
}
