package transport

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"time"
)

// MaxHeaderBytes is the default limit on the response header bytes that
// every command reads per response (--max-header-size): the status line
// and the fields of HTTP/1.1, and the header block of HTTP/2 and HTTP/3,
// both as sent and as decoded. A server that sends header fields without
// end then fails its request with a clear error instead of growing the
// client's memory until it is killed. 1 MiB is far above what real
// servers send (a few KiB) and the size net/http's server allows for
// request headers (http.DefaultMaxHeaderBytes).
const MaxHeaderBytes = 1 << 20

// MaxInformational is how many 1xx responses a request takes before its
// final response: one more fails it with ErrInformational. Servers send
// one or two (100 Continue, 103 Early Hints), or a 102 Processing every
// few seconds of a long operation; one that sends them in a loop would
// otherwise hold the request until its timeout, or forever.
const MaxInformational = 100

// ErrInformational is returned, wrapped, when a server sent more than
// MaxInformational 1xx responses to one request.
var ErrInformational = errors.New("too many informational (1xx) responses")

// HeaderLimit returns n, or MaxHeaderBytes when n is 0 or less: the
// limit a Config field whose zero value means the default stands for.
func HeaderLimit(n int64) int64 {
	if n <= 0 {
		return MaxHeaderBytes
	}
	return n
}

// HeaderLimitError is returned, wrapped, when a response header is larger
// than the limit.
type HeaderLimitError struct {
	Limit int64 // bytes
}

func (e *HeaderLimitError) Error() string {
	return fmt.Sprintf("the response header is larger than the limit of %d bytes", e.Limit)
}

// IsHeaderLimit reports whether err is, or wraps, a HeaderLimitError.
func IsHeaderLimit(err error) bool {
	var hl *HeaderLimitError
	return errors.As(err, &hl)
}

// HeaderReader reads HTTP/1.1 responses from a connection with their
// header bounded: http.ReadResponse alone reads header lines for as long
// as the server sends them. As net/http's own Transport does, it counts
// the bytes taken from the connection while a header is read (the
// buffer's read-ahead included, so the bound is the limit plus at most
// one buffer) and lifts the bound for the body.
type HeaderReader struct {
	br  *bufio.Reader
	lim limitedReader
}

// NewHeaderReader returns a HeaderReader on r with a header limit of
// limit bytes (0: MaxHeaderBytes).
func NewHeaderReader(r io.Reader, limit int64) *HeaderReader {
	h := &HeaderReader{lim: limitedReader{r: r, limit: HeaderLimit(limit), left: math.MaxInt64}}
	h.br = bufio.NewReader(&h.lim)
	return h
}

// Buffered returns the reader the response bodies are read from.
func (h *HeaderReader) Buffered() *bufio.Reader { return h.br }

// ReadResponse reads one response's status line and header for req
// (nil: a GET) within the limit; its body reads without one. A header
// over the limit is a HeaderLimitError.
//
// A read that times out part way through a header is a SlowError:
// http.ReadResponse alone would parse the part that arrived as if it were
// the whole line and call it malformed.
func (h *HeaderReader) ReadResponse(req *http.Request) (*http.Response, error) {
	start, buffered := time.Now(), int64(h.br.Buffered())
	h.lim.left, h.lim.err = h.lim.limit-buffered, nil
	first := h.lim.left
	resp, err := http.ReadResponse(h.br, req)
	read := buffered + first - h.lim.left - int64(h.br.Buffered()) // of this response's header
	h.lim.left = math.MaxInt64
	switch {
	case err == nil:
		return resp, nil
	case h.lim.hit:
		h.lim.hit = false
		return nil, &HeaderLimitError{Limit: h.lim.limit}
	case isTimeout(h.lim.err):
		return nil, &SlowError{What: "response header", Read: read, Took: time.Since(start), Err: h.lim.err}
	}
	return nil, err
}

// SlowError is returned, wrapped, when a server sent part of a response
// and then nothing more within the time the client allowed: a slow
// server, not a malformed response.
type SlowError struct {
	What string        // what was being read: "response header", "body"
	Read int64         // bytes of it that arrived
	Took time.Duration // how long the client waited
	Err  error         // the timeout
}

func (e *SlowError) Error() string {
	return fmt.Sprintf("the server is too slow: %d bytes of the %s in %v, then the time was up (%v)",
		e.Read, e.What, e.Took.Round(time.Millisecond), e.Err)
}

func (e *SlowError) Unwrap() error { return e.Err }

// isTimeout reports whether err is a read's timeout (a deadline).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// limitedReader fails a read once left bytes were read.
type limitedReader struct {
	r     io.Reader
	limit int64 // the header limit
	left  int64 // bytes that may still be read
	hit   bool  // a read failed on the limit
	err   error // the last error of the reader below
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.hit = true
		return 0, &HeaderLimitError{Limit: l.limit}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil {
		l.err = err
	}
	return n, err
}

// headerLimitTexts are how the HTTP/2 client (net/http's and x/net's)
// and the HTTP/3 client (quic-go's) say that a response header passed
// the limit they were given; their error values are not exported.
var headerLimitTexts = []string{
	"response header list larger than advertised limit",
	"HEADERS frame too large",
	"http3: headers too large",
}

// AsHeaderLimit returns err wrapped with a HeaderLimitError of limit when
// it is an HTTP/2 or HTTP/3 client's refusal of a response header larger
// than the limit (0: MaxHeaderBytes); other errors come back as they are.
func AsHeaderLimit(err error, limit int64) error {
	if err == nil || IsHeaderLimit(err) {
		return err
	}
	for _, s := range headerLimitTexts {
		if strings.Contains(err.Error(), s) {
			return fmt.Errorf("%w (%w)", &HeaderLimitError{Limit: HeaderLimit(limit)}, err)
		}
	}
	return err
}
