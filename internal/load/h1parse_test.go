package load

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

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
		{name: "bad-length", in: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", err: errMalformed},
		{name: "two-lengths", in: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", err: errMalformed},
		{name: "bad-chunk", in: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", err: errMalformed},
		{name: "huge-header", in: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 70000) + "\r\n\r\n", err: errTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.in), 4096)
			got, err := readResponse(br, tt.head)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("readResponse(%q) error = %v; want %v", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("readResponse(%q) error = %v", tt.in, err)
			}
			rest, _ := io.ReadAll(br)
			if got.status != tt.status || got.close != tt.close || string(rest) != tt.rest {
				t.Errorf("readResponse(%q) = status %d close %v rest %q; want %d %v %q", tt.in, got.status, got.close, rest, tt.status, tt.close, tt.rest)
			}
			if got.body != tt.body {
				t.Errorf("readResponse(%q) counted %d body bytes; want %d", tt.in, got.body, tt.body)
			}
			if want := int64(len(tt.in) - len(tt.rest)); got.bytes != want {
				t.Errorf("readResponse(%q) counted %d bytes; want %d", tt.in, got.bytes, want)
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
		br := bufio.NewReaderSize(r, 4096)
		got, err := readResponse(br, head)
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
