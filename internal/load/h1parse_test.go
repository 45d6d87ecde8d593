package load

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// testHeaderLimit is the header limit of the parser tests: 64 KiB, so
// that the inputs over it stay small.
const testHeaderLimit = 64 << 10

// errHeaderTooLarge stands for a *HeaderTooLargeError in test tables.
var errHeaderTooLarge = errors.New("header too large")

func TestReadResponse(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		head   bool
		status int
		close  bool
		rest   string // what must remain unread
		body   int64
		err    error
	}{
		{name: "content-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloNEXT", status: 200, rest: "NEXT", body: 5},
		{name: "chunked", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\na;x=y\r\n0123456789\r\n0\r\nTrailer: 1\r\n\r\nNEXT", status: 200, rest: "NEXT", body: 15},
		{name: "head", in: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nNEXT", head: true, status: 200, rest: "NEXT"},
		{name: "204", in: "HTTP/1.1 204 No Content\r\n\r\nNEXT", status: 204, rest: "NEXT"},
		{name: "304", in: "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\nNEXT", status: 304, rest: "NEXT"},
		{name: "interim", in: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\nNEXT", status: 201, rest: "NEXT"},
		{name: "close", in: "HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n", status: 200, close: true},
		{name: "to-eof", in: "HTTP/1.0 200 OK\r\n\r\nbody until the end", status: 200, close: true, body: 18},
		{name: "http10-closes", in: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nokNEXT", status: 200, close: true, rest: "NEXT", body: 2},
		{name: "http10-keep-alive", in: "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nokNEXT", status: 200, rest: "NEXT", body: 2},
		{name: "http10-keep-alive-close", in: "HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n", status: 200, close: true},
		{name: "switching", in: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\nNEXT", status: 101, close: true, rest: "NEXT"},
		{name: "lf-only", in: "HTTP/1.1 404 Not Found\nContent-Length: 2\n\nnoNEXT", status: 404, rest: "NEXT", body: 2},
		{name: "no-reason", in: "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", status: 200},
		{name: "truncated-body", in: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", err: io.ErrUnexpectedEOF},
		{name: "truncated-header", in: "HTTP/1.1 200 OK\r\nContent-Le", err: io.ErrUnexpectedEOF},
		{name: "bad-status", in: "HTTP/1.1 2x0 OK\r\n\r\n", err: errMalformed},
		{name: "not-http", in: "SSH-2.0-OpenSSH\r\n\r\n", err: errMalformed},
		{name: "19-digit-length", in: "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\nNEXT", head: true, status: 200, rest: "NEXT"},
		{name: "length-with-zeros", in: "HTTP/1.1 200 OK\r\nContent-Length: 000000000000000000002\r\n\r\nokNEXT", status: 200, rest: "NEXT", body: 2},
		{name: "length-overflow", in: "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808\r\n\r\n", head: true, err: errMalformed},
		{name: "length-20-digits", in: "HTTP/1.1 200 OK\r\nContent-Length: 12345678901234567890\r\n\r\n", head: true, err: errMalformed},
		{name: "bad-length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: errMalformed},
		{name: "two-lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", err: errMalformed},
		{name: "bad-chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: errMalformed},
		{name: "long-line", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 50000) + "\r\nContent-Length: 2\r\n\r\nokNEXT", status: 200, rest: "NEXT", body: 2},
		{name: "long-length-line", in: "HTTP/1.1 200 OK\r\nContent-Length:" + strings.Repeat(" ", 9000) + "2\r\n\r\nokNEXT", status: 200, rest: "NEXT", body: 2},
		{name: "huge-header", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 100000) + "\r\n\r\n", err: errHeaderTooLarge},
		{name: "many-fields", in: "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Pad: 0123456789\r\n", 6000) + "\r\n", err: errHeaderTooLarge},
		{name: "endless-1xx", in: strings.Repeat("HTTP/1.1 102 Processing\r\n\r\n", 4000), err: errHeaderTooLarge},
		{name: "huge-trailer", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + strings.Repeat("a", 100000) + "\r\n\r\n", err: errHeaderTooLarge},
		{name: "long-chunk-line", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;" + strings.Repeat("x", 5000) + "\r\nhello\r\n0\r\n\r\n", err: errMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newH1Reader(4096, testHeaderLimit)
			p.br.Reset(strings.NewReader(tt.in))
			br := p.br
			got, err := p.read(tt.head)
			if tt.err != nil {
				var large *HeaderTooLargeError
				if tt.err == errHeaderTooLarge && errors.As(err, &large) && large.Limit == testHeaderLimit {
					return
				}
				if !errors.Is(err, tt.err) {
					t.Fatalf("readResponse(%.80q) error = %v; want %v", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("readResponse(%.80q) error = %v", tt.in, err)
			}
			rest, _ := io.ReadAll(br)
			if got.status != tt.status || got.close != tt.close || string(rest) != tt.rest {
				t.Errorf("readResponse(%.80q) = status %d close %v rest %q; want %d %v %q", tt.in, got.status, got.close, rest, tt.status, tt.close, tt.rest)
			}
			if got.body != tt.body {
				t.Errorf("readResponse(%.80q) counted %d body bytes; want %d", tt.in, got.body, tt.body)
			}
			if want := int64(len(tt.in) - len(tt.rest)); got.bytes != want {
				t.Errorf("readResponse(%.80q) counted %d bytes; want %d", tt.in, got.bytes, want)
			}
		})
	}
}

// FuzzReadResponse feeds arbitrary bytes to the parser: it must not
// panic, and when it succeeds the bytes it counts must be those it read.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nbody",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\nffffffffffffff\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		r := &countingReader{data: data}
		p := newH1Reader(4096, testHeaderLimit)
		p.br.Reset(r)
		br := p.br
		got, err := p.read(head)
		if err != nil {
			return
		}
		if got.status < 100 || got.status > 999 {
			t.Fatalf("status %d out of range", got.status)
		}
		if consumed := int64(r.off - br.Buffered()); got.bytes != consumed {
			t.Fatalf("counted %d bytes; consumed %d", got.bytes, consumed)
		}
	})
}

type countingReader struct {
	data []byte
	off  int
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.off >= len(c.data) {
		return 0, io.EOF
	}
	n := copy(p, c.data[c.off:])
	c.off += n
	return n, nil
}
