package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// Sizes of the HTTP/1.1 response parser. The header limit is the run's
// (Config.MaxHeaderBytes).
const (
	// h1ReadBuffer is each connection's read buffer: it holds a whole
	// header line but for rare long ones (h1Reader.line), and its size is
	// the unit in which bodies are read and discarded.
	h1ReadBuffer = 64 << 10
	// h1ReadBufferTLS is the read buffer over TLS: crypto/tls returns at
	// most one record, 16 KiB, per Read, so a larger buffer holds nothing
	// more. At -c 50 the 64 KiB buffers were half of a keep-alive run's
	// live heap (3.2 of 6 to 9 MB), which the GC doubles into its goal.
	h1ReadBufferTLS = 16 << 10
	maxChunkLine    = 4 << 10 // one chunk-size line with extensions
)

// response is what the load engine keeps of an HTTP/1.1 response.
type response struct {
	status int
	bytes  int64 // header and body bytes read from the connection
	body   int64 // body bytes, after chunked decoding: what a run reports
	close  bool  // the server will close the connection after it
}

var errMalformed = errors.New("malformed HTTP response")

// h1Reader reads HTTP/1.1 responses from a connection.
type h1Reader struct {
	br *bufio.Reader
	// limit bounds the header bytes of a response: status lines and
	// fields, of the final response and its 1xx interim ones together,
	// so that a server sending fields or 102s without end fails the
	// request once it has sent that much. The trailer of a chunked body
	// has a limit of its own, as large.
	limit int64
	// line puts together a line longer than br's buffer: the success
	// path of ordinary responses never uses it.
	line []byte
}

// newH1Reader returns a reader with a buffer of size bytes.
func newH1Reader(size int, limit int64) *h1Reader {
	return &h1Reader{br: bufio.NewReaderSize(nil, size), limit: limit}
}

// read reads one HTTP/1.1 response and discards its body. It skips 1xx
// interim responses, honours Content-Length, chunked transfer coding and,
// when neither is present, reads to the end of the connection. head says
// the request was HEAD, whose response has no body. It allocates nothing
// on the success path.
func (p *h1Reader) read(head bool) (response, error) {
	var r response
	var used int64 // header bytes read, interim responses included
	for {
		hdr, err := p.readHeader(&r, &used)
		if err != nil {
			return r, err
		}
		if r.status >= 200 || r.status == 101 {
			// After 101 the connection speaks another protocol: no
			// further HTTP/1.1 response will come on it.
			r.close = r.close || r.status == 101
			return r, p.readBody(&r, hdr, head)
		}
	}
}

// readLine reads a line of a header (or trailer) of which used bytes have
// been read, and adds its length to used; a header past the limit is an
// error.
func (p *h1Reader) readLine(used *int64) ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		line, err = p.readLongLine(line, *used)
	}
	if err != nil {
		return nil, lineError(err)
	}
	*used += int64(len(line))
	if *used > p.limit {
		return nil, &HeaderTooLargeError{Limit: p.limit}
	}
	return line, nil
}

// readLongLine puts together in p.line a line longer than the read
// buffer, of which first was read, up to the header limit.
func (p *h1Reader) readLongLine(first []byte, used int64) ([]byte, error) {
	p.line = append(p.line[:0], first...)
	for used+int64(len(p.line)) <= p.limit {
		line, err := p.br.ReadSlice('\n')
		p.line = append(p.line, line...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return p.line, err
		}
	}
	return nil, &HeaderTooLargeError{Limit: p.limit}
}

// header holds the framing fields of one response header.
type header struct {
	length    int64 // -1 when absent
	chunked   bool
	keepAlive bool // Connection: keep-alive
}

func (p *h1Reader) readHeader(r *response, used *int64) (header, error) {
	h := header{length: -1}
	line, err := p.readLine(used)
	if err != nil {
		return h, err
	}
	r.bytes += int64(len(line))
	if r.status, err = parseStatusLine(line); err != nil {
		return h, err
	}
	// An HTTP/1.0 server closes the connection after the response
	// unless it says keep-alive (RFC 9112, section 9.3): a pipelined
	// request behind it must be sent again, not read as failed.
	http10 := line[7] == '0'
	for {
		line, err = p.readLine(used)
		if err != nil {
			return h, err
		}
		r.bytes += int64(len(line))
		line = trimEOL(line)
		if len(line) == 0 {
			r.close = r.close || http10 && !h.keepAlive
			return h, nil
		}
		if err := parseField(line, &h, r); err != nil {
			return h, err
		}
	}
}

func lineError(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b
}

// parseStatusLine reads "HTTP/1.x SSS reason".
func parseStatusLine(line []byte) (int, error) {
	line = trimEOL(line)
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' || len(line) > 12 && line[12] != ' ' {
		return 0, fmt.Errorf("%w: bad status line", errMalformed)
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: bad status code", errMalformed)
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 {
		return 0, fmt.Errorf("%w: bad status code", errMalformed)
	}
	return code, nil
}

// parseField notes the framing fields; others are skipped.
func parseField(line []byte, h *header, r *response) error {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 {
		return fmt.Errorf("%w: bad header field", errMalformed)
	}
	name := line[:colon]
	// Only names starting with C or T matter: skip the rest cheaply.
	if c := name[0] | 0x20; c != 'c' && c != 't' {
		return nil
	}
	value := bytes.TrimSpace(line[colon+1:])
	switch {
	case bytes.EqualFold(name, []byte("Content-Length")):
		n, ok := parseDecimal(value)
		if !ok || h.length >= 0 && h.length != n {
			return fmt.Errorf("%w: bad Content-Length", errMalformed)
		}
		h.length = n
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		h.chunked = hasToken(value, "chunked")
	case bytes.EqualFold(name, []byte("Connection")):
		for tok := range bytes.SplitSeq(value, []byte(",")) {
			switch tok = bytes.TrimSpace(tok); {
			case bytes.EqualFold(tok, []byte("close")):
				r.close = true
			case bytes.EqualFold(tok, []byte("keep-alive")):
				h.keepAlive = true
			}
		}
	}
	return nil
}

// parseDecimal reads a Content-Length: digits only, up to the largest
// int64 (19 digits); only a value past it is refused as too large.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (math.MaxInt64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// hasToken reports whether the comma-separated list v holds token,
// ignoring case.
func hasToken(v []byte, token string) bool {
	for len(v) > 0 {
		i := bytes.IndexByte(v, ',')
		if i < 0 {
			i = len(v)
		}
		if bytes.EqualFold(bytes.TrimSpace(v[:i]), []byte(token)) {
			return true
		}
		v = v[min(i+1, len(v)):]
	}
	return false
}

func (p *h1Reader) readBody(r *response, h header, head bool) error {
	br := p.br
	switch {
	case head || r.status == 204 || r.status == 304 || r.status == 101:
		return nil
	case h.chunked:
		return p.readChunked(r)
	case h.length >= 0:
		n, err := br.Discard(int(h.length))
		r.bytes += int64(n)
		r.body += int64(n)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	r.close = true
	for {
		n, err := br.Discard(br.Size())
		r.bytes += int64(n)
		r.body += int64(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readChunked discards a chunked body and its trailer.
func (p *h1Reader) readChunked(r *response) error {
	br := p.br
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxChunkLine {
			return fmt.Errorf("%w: chunk size line over %d bytes", errMalformed, maxChunkLine)
		}
		if err != nil {
			return lineError(err)
		}
		r.bytes += int64(len(line))
		size, ok := parseChunkSize(trimEOL(line))
		if !ok {
			return fmt.Errorf("%w: bad chunk size", errMalformed)
		}
		if size == 0 {
			return p.readTrailer(r)
		}
		n, err := br.Discard(int(size))
		r.bytes += int64(n)
		r.body += int64(n)
		if err != nil {
			return lineError(err)
		}
		line, err = br.ReadSlice('\n')
		if err != nil {
			return lineError(err)
		}
		r.bytes += int64(len(line))
		if len(trimEOL(line)) != 0 {
			return fmt.Errorf("%w: chunk not followed by CRLF", errMalformed)
		}
	}
}

func parseChunkSize(line []byte) (int64, bool) {
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || len(line) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range line {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}

func (p *h1Reader) readTrailer(r *response) error {
	var used int64
	for {
		line, err := p.readLine(&used)
		if err != nil {
			return err
		}
		r.bytes += int64(len(line))
		if len(trimEOL(line)) == 0 {
			return nil
		}
	}
}
