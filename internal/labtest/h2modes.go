package labtest

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Modes of an HTTP/2 server (over TLS, ALPN h2) that sends without end
// what a client must bound.
var (
	// H2HeadersForever answers the first request with a HEADERS frame
	// without END_HEADERS and then CONTINUATION frames of 1000-byte
	// header fields (never indexed) without end.
	H2HeadersForever = Mode{name: "HTTP/2 CONTINUATION forever", tls: true, alpn: []string{"h2"},
		serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
			serveH2(ctx, c, h2HeadersForever)
		}}
	// H2StalledBody takes the first request's HEADERS frame and then
	// reads and discards what the client sends without ever granting
	// more flow-control window: a request body larger than the initial
	// window (64 KiB) stalls on the client's side.
	H2StalledBody = Mode{name: "HTTP/2 stalled request body", tls: true, alpn: []string{"h2"},
		serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
			serveH2(ctx, c, func(ctx context.Context, fr *http2.Framer, _ uint32) {
				for ctx.Err() == nil {
					if _, err := fr.ReadFrame(); err != nil {
						return
					}
				}
			})
		}}
	// H2InformationalForever answers the first request with HEADERS
	// frames of a 102 Processing response without end.
	H2InformationalForever = Mode{name: "HTTP/2 1xx forever", tls: true, alpn: []string{"h2"},
		serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
			serveH2(ctx, c, h2InformationalForever)
		}}
)

// maxFramesBeforeRequest bounds the frames read while waiting for the
// client's first HEADERS frame.
const maxFramesBeforeRequest = 100

// serveH2 reads the client's preface, sends an empty SETTINGS frame,
// waits for the first request's HEADERS frame and hands its stream to
// answer, within endlessTime.
func serveH2(ctx context.Context, c net.Conn, answer func(ctx context.Context, fr *http2.Framer, stream uint32)) {
	c.SetDeadline(time.Now().Add(endlessTime))
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil {
		return
	}
	for range maxFramesBeforeRequest {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if h, ok := f.(*http2.HeadersFrame); ok {
			answer(ctx, fr, h.StreamID)
			return
		}
	}
}

// h2Block is the HPACK encoding of fields, without the dynamic table.
func h2Block(enc *hpack.Encoder, buf *bytes.Buffer, fields ...hpack.HeaderField) []byte {
	buf.Reset()
	for _, f := range fields {
		enc.WriteField(f)
	}
	return buf.Bytes()
}

func h2HeadersForever(ctx context.Context, fr *http2.Framer, stream uint32) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	head := h2Block(enc, &buf, hpack.HeaderField{Name: ":status", Value: "200"})
	if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: head}) != nil {
		return
	}
	pad := hpack.HeaderField{Name: "x-pad", Value: strings.Repeat("a", 1000), Sensitive: true}
	fields := make([]hpack.HeaderField, 15) // about 15 KB, under the default frame size of 16 KB
	for i := range fields {
		fields[i] = pad
	}
	for sent := 0; sent < endlessBytes && ctx.Err() == nil; sent += buf.Len() {
		if fr.WriteContinuation(stream, false, h2Block(enc, &buf, fields...)) != nil {
			return
		}
	}
}

func h2InformationalForever(ctx context.Context, fr *http2.Framer, stream uint32) {
	var buf bytes.Buffer
	block := h2Block(hpack.NewEncoder(&buf), &buf, hpack.HeaderField{Name: ":status", Value: "102"})
	for sent := 0; sent < endlessBytes && ctx.Err() == nil; sent += len(block) + 9 {
		if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: block, EndHeaders: true}) != nil {
			return
		}
	}
}
