package load

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestHTTP2ContinuationFlood runs against a server that answers HEADERS
// without END_HEADERS and then sends 16 KB CONTINUATION frames without
// end (up to 64 MiB here, to bound the test). The fast client appended
// every fragment: 5.4 GB and out of memory in 12 s against an endless
// one. It must fail the request once the block is past the header
// limit, with a clear error, and close the connection: the server then
// stops at the limit plus what the socket buffers hold.
func TestHTTP2ContinuationFlood(t *testing.T) {
	const flood = 64 << 20
	pad := hpackBlock(hpack.HeaderField{Name: "x-pad", Value: strings.Repeat("p", 16<<10-16)})
	url, written := serveRawH2(t, nil, func(c *rawH2) {
		id := c.nextRequest()
		if id == 0 {
			return
		}
		block := hpackBlock(hpack.HeaderField{Name: ":status", Value: "200"})
		if c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndStream: true}) != nil {
			return
		}
		for sent := 0; sent < flood; sent += len(pad) {
			if c.fr.WriteContinuation(id, false, pad) != nil {
				return
			}
		}
		_, _ = io.Copy(io.Discard, c.nc) // hold the connection until the client closes it
	})
	for _, limit := range []int64{0, 64 << 10} {
		written.Store(0)
		start := time.Now()
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: url}}, Protocol: transport.HTTP2, Requests: 1,
			MaxHeaderBytes: limit, Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		want := limit
		if want == 0 {
			want = transport.MaxHeaderBytes
		}
		e, ok := errorOf[*HeaderTooLargeError](res)
		if res.Errors != 1 || !ok || e.Limit != want {
			t.Errorf("limit %d: %d completed, %d failed %v; want 1 failed with a header limit of %d", limit, res.Requests, res.Errors, res.ErrorCounts, want)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("limit %d: the run took %v; want it to end at the limit, well before the timeout", limit, took)
		}
		if n := written.Load(); n > want+16<<20 {
			t.Errorf("limit %d: the server wrote %d bytes; want at most the limit and the socket buffers", limit, n)
		}
	}
}

// TestHTTP2HostileHeaders runs against labtest's HTTP/2 servers that
// send header blocks without end: CONTINUATION frames, and 102
// responses (each a small block, so that only their sum is over the
// limit). Each request fails with the header limit, at once rather than
// by the timeout. The limit is 64 KiB here: 1 MiB of 102 responses is
// 200,000 frames, 20 s of reading with the race detector.
func TestHTTP2HostileHeaders(t *testing.T) {
	for _, mode := range []labtest.Mode{labtest.H2HeadersForever, labtest.H2InformationalForever} {
		s := labtest.NewMisbehaving(t, mode)
		start := time.Now()
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.URL()}}, Protocol: transport.HTTP2, Requests: 1,
			MaxHeaderBytes: 64 << 10, Timeout: 20 * time.Second, TLS: transport.TLS{Trust: transport.Trust{RootCAs: s.CA.Pool()}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := errorOf[*HeaderTooLargeError](res); res.Errors != 1 || !ok || time.Since(start) > 10*time.Second {
			t.Errorf("%s: %d completed, %d failed %v after %v; want 1 failed with the header limit, before the timeout",
				mode, res.Requests, res.Errors, res.ErrorCounts, time.Since(start))
		}
	}
}

// TestHTTP2DecodedHeaderLimit sends a header block small as sent but
// large decoded: 30,000 one-byte references to the static table entry
// ":method GET" (42 bytes each in the header list size, 1.2 MiB). The
// stream fails with the header limit; the connection stays usable for
// the next request, answered normally.
func TestHTTP2DecodedHeaderLimit(t *testing.T) {
	var served int
	url, _ := serveRawH2(t, nil, func(c *rawH2) {
		for {
			id := c.nextRequest()
			if id == 0 {
				return
			}
			served++
			block := hpackBlock(hpack.HeaderField{Name: ":status", Value: "200"})
			if served == 1 {
				block = append(block, bytes.Repeat([]byte{0x82}, 30000)...)
			}
			if c.writeBlock(id, block, true) != nil {
				return
			}
		}
	})
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: url}}, Protocol: transport.HTTP2, Requests: 2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := errorOf[*HeaderTooLargeError](res); res.Errors != 1 || res.Requests != 1 || !ok || res.Connections != 1 {
		t.Errorf("%d completed, %d failed %v on %d connections; want 1 and 1 with the header limit, on 1", res.Requests, res.Errors, res.ErrorCounts, res.Connections)
	}
}

// TestHTTP3HeaderFlood runs against labtest's HTTP/3 server whose
// response header block is 2 MiB: quic-go refuses its HEADERS frame by
// its length, before reading it, and the request fails with the header
// limit, named as on HTTP/1.1 and HTTP/2, rather than with quic-go's text.
func TestHTTP3HeaderFlood(t *testing.T) {
	s := labtest.NewMisbehaving(t, labtest.H3HeaderFlood)
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.URL()}}, Protocol: transport.HTTP3, Requests: 1,
		Timeout: 5 * time.Second, TLS: transport.TLS{Trust: transport.Trust{RootCAs: s.CA.Pool()}}})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := errorOf[*HeaderTooLargeError](res); res.Errors != 1 || !ok || e.Limit != transport.MaxHeaderBytes {
		t.Errorf("%d completed, %d failed %v; want 1 failed with a header limit of %d", res.Requests, res.Errors, res.ErrorCounts, transport.MaxHeaderBytes)
	}
}
