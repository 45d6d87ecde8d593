package transport

import (
	"io"
	"strings"
	"testing"
)

// endlessTrailer is a chunked response whose trailer does not end: after
// one chunk and the last chunk, field lines until 16 MiB were read (so
// that a reader without a bound fails the test instead of hanging it).
type endlessTrailer struct {
	head string
	read int64
}

func (e *endlessTrailer) Read(p []byte) (int, error) {
	if e.read > 16<<20 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) {
		if e.head != "" {
			c := copy(p[n:], e.head)
			e.head = e.head[c:]
			n += c
			continue
		}
		c := copy(p[n:], "X-Trailer-Pad: ppppppppppppppppppppppppppppppp\r\n")
		n += c
	}
	e.read += int64(n)
	return n, nil
}

// TestChunkedTrailer: a chunked body's trailer is read into the
// response's Trailer, the next response on the connection follows it,
// and a trailer without end fails after a bounded read: net/http reads a
// trailer only when its end is within the buffer (4 KiB), so the
// HeaderReader needs no limit of its own for it.
func TestChunkedTrailer(t *testing.T) {
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
		"5\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 42\r\n\r\n"
	next := "HTTP/1.1 204 No Content\r\n\r\n"
	h := NewHeaderReader(strings.NewReader(chunked+next), 4<<10)
	resp, err := h.ReadResponse(nil)
	if err != nil {
		t.Fatalf("ReadResponse = %v", err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || string(b) != "hello world" {
		t.Fatalf("body %q, %v; want %q", b, err, "hello world")
	}
	if got := resp.Trailer.Get("X-Sum"); got != "42" {
		t.Errorf("Trailer X-Sum = %q; want 42", got)
	}
	if resp, err := h.ReadResponse(nil); err != nil || resp.StatusCode != 204 {
		t.Errorf("next response: %v, %v; want 204", resp, err)
	}

	src := &endlessTrailer{head: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"}
	const limit = 64 << 10
	h = NewHeaderReader(src, limit)
	resp, err = h.ReadResponse(nil)
	if err != nil {
		t.Fatalf("ReadResponse = %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil || string(b) != "ok" {
		t.Fatalf("endless trailer: body %q, %v; want %q and an error", b, err, "ok")
	}
	if src.read > 2*limit {
		t.Errorf("endless trailer: %d bytes read; want at most about the limit of %d", src.read, limit)
	}
}
