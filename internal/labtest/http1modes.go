package labtest

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Modes of a server that stalls or closes at the wrong moment.
var (
	// Silent accepts and reads, and never answers: a stalled server.
	Silent = Mode{name: "silent", serve: func(_ context.Context, _ *Misbehaving, c net.Conn) {
		io.Copy(io.Discard, c)
	}}
	// CloseOnAccept closes each connection as soon as it is accepted.
	CloseOnAccept = Mode{name: "close on accept", serve: func(context.Context, *Misbehaving, net.Conn) {}}
	// CloseAfterRequest reads the request (or a ClientHello) and closes
	// without a word.
	CloseAfterRequest = Mode{name: "close after the request", serve: func(_ context.Context, _ *Misbehaving, c net.Conn) {
		readRequest(c)
	}}
	// CloseMidBody announces a 1000-byte body, sends 7 bytes of it and
	// closes.
	CloseMidBody = Reply("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
)

// Reply reads the request and writes raw as the response, counted in
// Replies, then closes the connection, as an HTTP/1.0 server without
// keep-alive does.
func Reply(raw string) Mode {
	return Mode{name: "reply " + firstLine(raw), serve: func(_ context.Context, s *Misbehaving, c net.Conn) {
		if readRequest(c) {
			s.reply(c, []byte(raw))
		}
	}}
}

// ReplyAndHold reads the request, writes raw, and then keeps the
// connection open, reading and discarding, until the client or the test
// closes it.
func ReplyAndHold(raw string) Mode {
	return Mode{name: "reply and hold " + firstLine(raw), serve: func(_ context.Context, s *Misbehaving, c net.Conn) {
		if readRequest(c) && s.reply(c, []byte(raw)) == nil {
			io.Copy(io.Discard, c)
		}
	}}
}

// CloseMidPipeline answers the first n requests of each connection with
// a 200 that keeps the connection alive (no Connection: close), then
// closes it, leaving the requests pipelined behind them unanswered.
func CloseMidPipeline(n int) Mode {
	return Mode{name: "close mid-pipeline", serve: func(_ context.Context, s *Misbehaving, c net.Conn) {
		answer(s, c, n, okResponse)
	}}
}

// Answer answers every request of each connection with raw, keeping the
// connection open (up to 10,000 requests): a server whose responses are
// well formed but odd (a large header, a status without reason).
func Answer(raw string) Mode {
	return Mode{name: "answer " + firstLine(raw), serve: func(_ context.Context, s *Misbehaving, c net.Conn) {
		answer(s, c, maxAnswers, raw)
	}}
}

// okResponse is the answer of the modes that answer correctly.
const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"

// maxAnswers bounds the requests a mode that answers answers on one
// connection.
const maxAnswers = 10000

// answer answers up to n requests of c with raw.
func answer(s *Misbehaving, c net.Conn, n int, raw string) {
	br := bufio.NewReader(c)
	for range n {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, io.LimitReader(req.Body, maxRequest))
		if s.reply(c, []byte(raw)) != nil {
			return
		}
	}
}

// Modes of a server that sends without end what a client must bound.
var (
	// HeadersForever answers with a status line and then header lines
	// of 1000 bytes each, without end.
	HeadersForever = Mode{name: "headers forever", serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
		if readRequest(c) {
			endless(ctx, c, []byte("HTTP/1.1 200 OK\r\n"), []byte("X-Pad: "+strings.Repeat("a", 1000)+"\r\n"))
		}
	}}
	// EndlessHeaderLine answers with a status line and one header line
	// that never ends.
	EndlessHeaderLine = Mode{name: "endless header line", serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
		if readRequest(c) {
			endless(ctx, c, []byte("HTTP/1.1 200 OK\r\nX-Long: "), []byte(strings.Repeat("a", 4096)))
		}
	}}
	// InformationalForever answers with 102 Processing responses
	// without end, never a final one.
	InformationalForever = Mode{name: "1xx forever", serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
		if readRequest(c) {
			endless(ctx, c, nil, []byte(strings.Repeat("HTTP/1.1 102 Processing\r\n\r\n", 100)))
		}
	}}
)

// Trickle reads the request and writes raw one byte per interval, then
// keeps the connection open until the client or the test closes it: a
// server too slow to be useful but never silent.
func Trickle(raw string, interval time.Duration) Mode {
	return Mode{name: "trickle " + firstLine(raw), serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
		if !readRequest(c) {
			return
		}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for i := range len(raw) {
			if _, err := c.Write([]byte{raw[i]}); err != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		io.Copy(io.Discard, c)
	}}
}

// firstLine names a raw response by its first line.
func firstLine(raw string) string {
	line, _, _ := strings.Cut(raw, "\r\n")
	return line
}
