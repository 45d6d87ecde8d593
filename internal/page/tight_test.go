package page

import (
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestTightMode loads 20 images of mixed sizes with the tight mode
// modelled, over HTTP/1.1 and HTTP/2: until the mode's end, no image is
// sent while two are in flight (each is held in flight by the modelled
// processing), and the images held go once it ends, more than two at a
// time. Without the mode all twenty go at once.
func TestTightMode(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	const until, cost = 200 * time.Millisecond, 20 * time.Millisecond
	for _, proto := range []Protocol{HTTP1, HTTP2} {
		cfg := configFor(srv, proto, "/page/mixed?n=20")
		cfg.TightLimit, cfg.TightUntil, cfg.ResponseCost = DefaultBrowserTightLimit, until, cost
		ld := load(t, cfg)
		end := ld.Requests[0].End + until // the mode's end
		var images []span
		for _, r := range ld.Requests[1:] {
			images = append(images, span{r.Conn, sendStart(r), r.End})
		}
		if len(images) != 20 {
			t.Fatalf("%s: %d images; want 20", proto, len(images))
		}
		held, mostAfter := 0, 0
		for _, a := range images {
			n := inFlight(images, a.sent)
			if a.sent < end && n > DefaultBrowserTightLimit {
				t.Errorf("%s: an image sent at %v, before the tight mode's end at %v, with %d in flight; want %d at most", proto, a.sent, end, n, DefaultBrowserTightLimit)
			}
			if a.sent >= end {
				held++
				mostAfter = max(mostAfter, n)
			}
		}
		// 20 ms of processing each keeps the images sent before the end
		// to about 2 per 20 ms: most are held.
		if held < 5 || mostAfter <= DefaultBrowserTightLimit {
			t.Errorf("%s: %d images sent after the tight mode's end at %v, at most %d in flight then; want 5 or more, more than %d in flight", proto, held, end, mostAfter, DefaultBrowserTightLimit)
		}
	}
}

// inFlight counts the spans sent by t and not done at t.
func inFlight(spans []span, t time.Duration) int {
	n := 0
	for _, s := range spans {
		if s.sent <= t && t < s.done {
			n++
		}
	}
	return n
}

// TestTightModeHoldsTheRest: requests of higher priority than images,
// here blocking scripts, found during the tight mode wait for its end
// too, and over HTTP/1.1 no connection is opened for them before.
func TestTightModeHoldsTheRest(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	const until = 150 * time.Millisecond
	for _, proto := range []Protocol{HTTP1, HTTP2} {
		cfg := configFor(srv, proto, "/page/scripts?n=8&size=1000")
		cfg.TightLimit, cfg.TightUntil = DefaultBrowserTightLimit, until
		ld := load(t, cfg)
		end := ld.Requests[0].End + until
		for _, r := range ld.Requests[1:] {
			if sent := sendStart(r); sent < end {
				t.Errorf("%s: script %d sent at %v; want it held to the tight mode's end at %v", proto, r.ID, sent, end)
			}
		}
		for _, c := range ld.Conns[1:] {
			if c.Start < end {
				t.Errorf("%s: connection %d opened at %v; want none before the tight mode's end at %v", proto, c.ID, c.Start, end)
			}
		}
		if ld.Duration < end {
			t.Errorf("%s: load time %v; want the tight mode's end at %v at least", proto, ld.Duration, end)
		}
	}
}

// TestTightBurstCost: the tight mode ends later by the burst's cost per
// request it holds then: the images held at TightUntil go out together
// once the burst's cost for each of them has passed. The first two stay
// in flight past it (the modelled delay holds them), so most are held.
func TestTightBurstCost(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	const until, perRequest = 50 * time.Millisecond, 10 * time.Millisecond
	cfg := configFor(srv, HTTP2, "/page/mixed?n=18")
	cfg.TightLimit, cfg.TightUntil, cfg.TightBurstCost = DefaultBrowserTightLimit, until, perRequest
	cfg.ResponseDelay = 500 * time.Millisecond
	ld := load(t, cfg)
	release := ld.Requests[0].End + until
	var late []time.Duration
	for _, r := range ld.Requests[1:] {
		if sent := sendStart(r); sent >= release {
			late = append(late, sent)
		}
	}
	if len(late) < 10 {
		t.Fatalf("%d images sent after the tight mode's end at %v; want 10 or more of 16 held", len(late), release)
	}
	end := release + time.Duration(len(late))*perRequest
	for _, sent := range late {
		if sent < end {
			t.Errorf("a held image sent at %v; want it held for the burst of %d to %v", sent, len(late), end)
		}
	}
}
