package page

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
)

// Behind the link of TestLoadTimeBehindLink: seed 003's page of 360
// images of 18.3 kB at 40 ms RTT, at a rate at which HTTP/1.1's time is
// mostly round trips (a round of six images is 18 ms of the link's time
// per 40 ms round trip) and HTTP/2's mostly the link's rate.
const (
	linkRTT    = 40 * time.Millisecond
	linkRate   = 50_000_000 // bits per second
	linkImages = 360
	linkSize   = 18300
	// initialWindow is Linux's initial congestion window, 10 segments
	// of 1448 bytes (RFC 6928), in bytes on the link (1500 per packet).
	initialWindow = 10 * 1500
)

// h1Model is the HTTP/1.1 load time of the page. The first connection
// is ready after the handshake (TCP's round trip and TLS 1.3's) and has
// the document's first byte one round trip later; the images are
// discovered then, and the five more connections the queue asks for are
// ready two round trips after that (their handshakes), while the first
// one finishes the document (about one round trip more: it is larger
// than the initial window). From there each connection takes one image
// at a time, and the six move in step: their requests go out together,
// the server writes the six responses at once, their packets interleave
// on the link, and each response ends when all six have crossed it. One
// round of six images takes c = RTT + 6 b/R (b an image's bytes on the
// link, R its rate). With connection 1 free from t1 = 4 RTT and the
// five others from t2 = 5 RTT, the 360 images are done at T with
// (T - t1) + 5 (T - t2) = 60 c:
//
//	T = 60 c + (t1 + 5 t2)/6 = 60 RTT + 360 b/R + 4.83 RTT,
//
// the handshake and the document, 60 sequential round trips, and the
// transfer of every image at the link's rate.
func h1Model(rtt time.Duration, imageBytes, rate float64) time.Duration {
	c := rtt.Seconds() + DefaultMaxConnsPerOrigin*imageBytes/rate
	t := linkImages/DefaultMaxConnsPerOrigin*c + (4+5*5)/6.0*rtt.Seconds()
	return time.Duration(t * float64(time.Second))
}

// h2Model is the HTTP/2 load time of the page: the handshake (two round
// trips), the document's request (one), the images' requests sent as
// the document streams in (one more to their first bytes), and then
// every byte at the link's rate, once TCP's slow start has grown the
// window from its initial 10 segments to the bandwidth-delay product:
// it doubles each round trip, so for k = ceil(log2(R·RTT/IW)) round
// trips the link is partly idle, having carried IW·(2^k - 1) bytes in
// them. T = 4 RTT + k RTT + (B - IW·(2^k - 1))/R.
func h2Model(rtt time.Duration, bytes, rate float64) time.Duration {
	k := math.Ceil(math.Log2(rate * rtt.Seconds() / initialWindow))
	early := initialWindow * (math.Exp2(k) - 1)
	t := (4+k)*rtt.Seconds() + max(bytes-early, 0)/rate
	return time.Duration(t * float64(time.Second))
}

// TestLoadTimeBehindLink checks the physics of a page load behind an
// emulated link (needs root, as CI runs): HTTP/1.1's six connections
// make a 360-image page take 60 sequential round trips, HTTP/2's one
// connection is bound by the link's rate. Each load is within 15% of its
// model, on both sides; a scheduler that used more or fewer connections,
// or serialised HTTP/2's streams, is far outside.
func TestLoadTimeBehindLink(t *testing.T) {
	srv, err := embedded.Start(context.Background(), embedded.Config{
		Server: lab.Config{NoHTTP3: true},
		Link:   &netem.Config{RTT: linkRTT, Bandwidth: linkRate},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	rate := float64(linkRate) / 8
	for _, proto := range []Protocol{HTTP1, HTTP2} {
		before := srv.Link.Stats().ToClient
		ld := load(t, configFor(srv.Server, proto, "/page/images?n=360&size=18300"))
		after := srv.Link.Stats().ToClient
		bytes := float64(after.Bytes - before.Bytes)
		var model time.Duration
		if proto == HTTP1 {
			model = h1Model(linkRTT, bytes/linkImages, rate)
		} else {
			model = h2Model(linkRTT, bytes, rate)
		}
		ratio := float64(ld.Duration) / float64(model)
		t.Logf("%s: load %v, model %v (%.2f), %d connections, %.0f bytes to the client, RTT %v, TTFB %v, dropped %d",
			proto, ld.Duration.Round(time.Millisecond), model.Round(time.Millisecond), ratio, len(ld.Conns), bytes, ld.RTT, ld.TTFB, after.Dropped-before.Dropped)
		if ld.Failed != 0 || len(ld.Requests) != linkImages+1 {
			t.Errorf("%s: %d of %d requests failed; want %d, none failed", proto, ld.Failed, len(ld.Requests), linkImages+1)
		}
		if ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: load time %v, %.2f times the model's %v; want within 15%%", proto, ld.Duration, ratio, model)
		}
	}
}
