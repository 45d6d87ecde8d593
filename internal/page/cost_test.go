package page

import (
	"slices"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestProcessorQueue: responses are processed one at a time in the
// order they arrive, each for the cost; one that arrives to an idle
// processor starts at once.
func TestProcessorQueue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	p := &processor{cost: 3 * time.Millisecond}
	for i, tt := range []struct{ arrived, want time.Time }{
		{ms(0), ms(3)},   // idle: at once
		{ms(0), ms(6)},   // behind the first
		{ms(1), ms(9)},   // behind both
		{ms(20), ms(23)}, // idle again
		{ms(21), ms(26)},
	} {
		if got := p.take(tt.arrived, 1000); !got.Equal(tt.want) {
			t.Errorf("response %d, arrived at %v: processed at %v; want %v", i+1, tt.arrived.Sub(t0), got.Sub(t0), tt.want.Sub(t0))
		}
	}
	// With a cost per MB, each response's processing grows with its body.
	p = &processor{cost: 3 * time.Millisecond, perMB: 40 * time.Millisecond}
	for i, tt := range []struct {
		arrived time.Time
		size    int64
		want    time.Time
	}{
		{ms(0), 0, ms(3)},
		{ms(0), 500_000, ms(26)}, // 3 + 20 for half a MB, behind the first
		{ms(100), 2_000_000, ms(183)},
		{ms(100), 25_000, ms(187)}, // 3 + 1
	} {
		if got := p.take(tt.arrived, tt.size); !got.Equal(tt.want) {
			t.Errorf("with a cost per MB, response %d of %d bytes, arrived at %v: processed at %v; want %v", i+1, tt.size, tt.arrived.Sub(t0), got.Sub(t0), tt.want.Sub(t0))
		}
	}
	// With a delay, responses wait for it side by side, then queue.
	p = &processor{cost: 3 * time.Millisecond, delay: 10 * time.Millisecond}
	for i, tt := range []struct{ arrived, want time.Time }{
		{ms(0), ms(13)},
		{ms(1), ms(16)}, // ready at 11, behind the first
		{ms(30), ms(43)},
	} {
		if got := p.take(tt.arrived, 1000); !got.Equal(tt.want) {
			t.Errorf("with a delay, response %d, arrived at %v: processed at %v; want %v", i+1, tt.arrived.Sub(t0), got.Sub(t0), tt.want.Sub(t0))
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
// processing modelled: every request ends with its processing, no two
// are processed at once (so the load takes at least 21 times the cost),
// and a request frees its HTTP/1.1 connection or its HTTP/2 stream only
// once processed: the next request on the connection is not sent before,
// and no more requests than MaxStreams are between sent and processed.
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
			if last.Name != PhaseProcess || last.Start+last.Duration != r.End || last.Duration < cost {
				t.Errorf("%s: request %d ends with %+v at %v; want its processing, at least %v, ending it", proto, r.ID, last, r.End, cost)
			}
			ends = append(ends, r.End)
			sends = append(sends, span{r.Conn, sendStart(r), r.End})
		}
		slices.Sort(ends)
		for i := 1; i < len(ends); i++ {
			if ends[i]-ends[i-1] < cost {
				t.Errorf("%s: responses processed at %v and %v; want %v apart at least", proto, ends[i-1], ends[i], cost)
			}
		}
		checkHeld(t, proto, sends, cfg.MaxStreams)
	}
}

// TestResponseCostPerMB loads a page of 4 images of 400 kB, over
// HTTP/1.1 and HTTP/2, with the browser's processing per MB modelled:
// each image is processed for at least its bytes' share, one at a time,
// so the load takes at least the four images' processing, and their
// processing ends that far apart.
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
		var ends []time.Duration
		for _, r := range ld.Requests {
			if r.Kind != KindImage {
				continue
			}
			if r.BodyBytes != size {
				t.Errorf("%s: request %d read %d bytes; want %d", proto, r.ID, r.BodyBytes, size)
			}
			if last := r.Phases[len(r.Phases)-1]; last.Name != PhaseProcess || last.Duration < perImage {
				t.Errorf("%s: request %d ends with %+v; want its processing, at least %v", proto, r.ID, last, perImage)
			}
			ends = append(ends, r.End)
		}
		slices.Sort(ends)
		for i := 1; i < len(ends); i++ {
			if ends[i]-ends[i-1] < perImage {
				t.Errorf("%s: images processed at %v and %v; want %v apart at least", proto, ends[i-1], ends[i], perImage)
			}
		}
		if len(ends) != 4 {
			t.Errorf("%s: %d images loaded; want 4", proto, len(ends))
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
