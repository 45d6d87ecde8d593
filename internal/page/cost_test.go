package page

import (
	"slices"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestProcessorQueue: the processor works through the responses'
// headers and bytes one at a time in the order they come in; work that
// comes to an idle processor starts at once, and a response is processed
// once its own headers and bytes are, and no sooner than the delay after
// its last byte.
func TestProcessorQueue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	p := &processor{cost: 3 * time.Millisecond, perMB: 40 * time.Millisecond}
	for i, tt := range []struct {
		at   int    // ms from t0
		head bool   // a response's headers came in at at (else bytes)
		n    int    // the bytes
		want int    // ms from t0 they are processed
		why  string // for the reader
	}{
		{0, true, 0, 3, "idle: at once"},
		{0, true, 0, 6, "behind the first"},
		{1, false, 500_000, 26, "20 ms of bytes, behind both"},
		{2, false, 25_000, 27, "1 ms, behind the large body"},
		{100, true, 0, 103, "idle again"},
		{100, false, 1_000_000, 143, "40 ms"},
		{110, true, 0, 146, "headers behind the bytes"},
		{110, false, 0, 146, "no bytes, no work: processed with what came before"},
	} {
		var got time.Time
		if tt.head {
			got = p.head(ms(tt.at))
		} else {
			got = p.read(ms(tt.at), tt.n)
		}
		if !got.Equal(ms(tt.want)) {
			t.Errorf("step %d (%s) at %d ms: processed at %v; want %d ms", i+1, tt.why, tt.at, got.Sub(t0), tt.want)
		}
	}
	// A response is done when its work is, and at the earliest the delay
	// after its last byte: responses wait for the delay side by side.
	p = &processor{delay: 10 * time.Millisecond}
	for i, tt := range []struct{ arrived, queued, want int }{
		{0, 3, 10},   // processed before its delay is up
		{1, 6, 11},   // side by side with the first, not behind it
		{30, 45, 45}, // its work done after the delay
	} {
		if got := p.done(ms(tt.arrived), ms(tt.queued)); !got.Equal(ms(tt.want)) {
			t.Errorf("with a delay, response %d, arrived at %d ms, work done at %d ms: done at %v; want %d ms", i+1, tt.arrived, tt.queued, got.Sub(t0), tt.want)
		}
	}
}

// TestResponseDelay: over HTTP/1.1 the modelled hand-offs lie on each
// connection's path: 12 images on 6 connections take two rounds after
// the document, each with the delay, so the load takes three delays at
// least, and every request's processing as long as the delay.
func TestResponseDelay(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	const delay = 60 * time.Millisecond
	cfg := configFor(srv, HTTP1, "/page/images?n=12&size=1000")
	cfg.ResponseDelay = delay
	ld := load(t, cfg)
	if ld.Duration < 3*delay {
		t.Errorf("load time %v; want at least 3 × %v", ld.Duration, delay)
	}
	for _, r := range ld.Requests {
		if last := r.Phases[len(r.Phases)-1]; last.Name != PhaseProcess || last.Duration < delay {
			t.Errorf("request %d ends with %+v; want its processing, at least %v", r.ID, last, delay)
		}
	}
}

// TestResponseCost loads a page of 20 images with the browser's
// processing modelled: every request ends with its processing; the
// responses' headers are processed one at a time, so the load takes at
// least 21 times the cost, and the i-th request to complete does so at
// least i times the cost after the load started; and a request frees
// its HTTP/1.1 connection or its HTTP/2 stream only once processed: the
// next request on the connection is not sent before, and no more
// requests than MaxStreams are between sent and processed.
func TestResponseCost(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	const cost = 15 * time.Millisecond
	for _, proto := range []Protocol{HTTP1, HTTP2} {
		cfg := configFor(srv, proto, "/page/images?n=20&size=1000")
		cfg.ResponseCost, cfg.MaxStreams = cost, 4
		ld := load(t, cfg)
		if ld.Duration < 21*cost {
			t.Errorf("%s: load time %v; want at least 21 × %v", proto, ld.Duration, cost)
		}
		var ends []time.Duration
		var sends []span // sent to processed, per request
		for _, r := range ld.Requests {
			last := r.Phases[len(r.Phases)-1]
			if last.Name != PhaseProcess || last.Start+last.Duration != r.End {
				t.Errorf("%s: request %d ends with %+v at %v; want its processing, ending it", proto, r.ID, last, r.End)
			}
			ends = append(ends, r.End)
			sends = append(sends, span{r.Conn, sendStart(r), r.End})
		}
		slices.Sort(ends)
		for i, end := range ends {
			if end < time.Duration(i+1)*cost {
				t.Errorf("%s: response %d of %d processed at %v; want %v at the earliest, its headers and those of the %d before it processed one at a time", proto, i+1, len(ends), end, time.Duration(i+1)*cost, i)
			}
		}
		checkHeld(t, proto, sends, cfg.MaxStreams)
	}
}

// TestResponseCostPerMB loads a page of 4 images of 400 kB, over
// HTTP/1.1 and HTTP/2, with the browser's processing per MB modelled: the
// bytes are processed one at a time as they come, so the load takes at
// least the four images' processing, and on loopback, where they come
// far faster than they are processed, the image completed last waits
// for most of it after its last byte.
func TestResponseCostPerMB(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	const perMB, size = 100 * time.Millisecond, 400_000
	perImage := perMB * size / 1e6 // 40 ms
	for _, proto := range []Protocol{HTTP1, HTTP2} {
		cfg := configFor(srv, proto, "/page/images?n=4&size=400000")
		cfg.ResponseCostPerMB = perMB
		ld := load(t, cfg)
		if ld.Duration < 4*perImage {
			t.Errorf("%s: load time %v; want at least 4 × %v", proto, ld.Duration, perImage)
		}
		var images int
		var last Request
		for _, r := range ld.Requests {
			if r.Kind != KindImage {
				continue
			}
			images++
			if r.BodyBytes != size {
				t.Errorf("%s: request %d read %d bytes; want %d", proto, r.ID, r.BodyBytes, size)
			}
			if p := r.Phases[len(r.Phases)-1]; p.Name != PhaseProcess {
				t.Errorf("%s: request %d ends with %+v; want its processing", proto, r.ID, p)
			}
			if r.End > last.End {
				last = r
			}
		}
		if images != 4 {
			t.Errorf("%s: %d images loaded; want 4", proto, images)
		} else if p := last.Phases[len(last.Phases)-1]; p.Duration < 2*perImage {
			t.Errorf("%s: the image completed last was processed for %v after its last byte; want at least %v", proto, p.Duration, 2*perImage)
		}
	}
}

// span is a request from its send to its end, on its connection.
type span struct {
	conn       int
	sent, done time.Duration
}

// sendStart is when r's request was sent (the start of its send phase).
func sendStart(r Request) time.Duration {
	for _, ph := range r.Phases {
		if ph.Name == PhaseSend || ph.Name == PhaseWait {
			return ph.Start
		}
	}
	return r.End
}

// checkHeld checks that over HTTP/1.1 the requests of a connection do
// not overlap, from sent to processed, and over HTTP/2 that at most
// streams of them do.
func checkHeld(t *testing.T, proto Protocol, spans []span, streams int) {
	t.Helper()
	for _, a := range spans {
		overlap := 1
		for _, b := range spans {
			if a != b && b.sent <= a.sent && a.sent < b.done && (proto == HTTP2 || a.conn == b.conn) {
				overlap++
			}
		}
		if limit := map[Protocol]int{HTTP1: 1, HTTP2: streams}[proto]; overlap > limit {
			t.Errorf("%s: a request sent at %v on connection %d while %d were sent and not processed; want at most %d", proto, a.sent, a.conn, overlap-1, limit-1)
		}
	}
}
