package load

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The fast HTTP/2 client: one goroutine per connection writes HEADERS
// frames for up to Streams requests, then reads frames until streams end,
// with header blocks encoded once per target. It serves the closed model;
// the open model and large bodies go through net/http (mux.go).

// h2Window is the flow-control window the client grants the server, per
// stream and for the connection, so that responses never wait for it.
const h2Window = 1 << 30

// h2Request is a target as HTTP/2 header fields and a body. The fields
// are encoded per connection with its own HPACK encoder: after the first
// requests every field is a one-byte reference to the server's dynamic
// table, as browsers and h2load send them, which spares the server from
// decoding the same strings on every request.
type h2Request struct {
	fields []hpack.HeaderField
	body   []byte
}

// h2MaxBody is the largest request body the fast client sends: one DATA
// frame within the default initial window.
const h2MaxBody = 16 << 10

func newH2Requests(targets []Target) ([]h2Request, bool) {
	out := make([]h2Request, len(targets))
	for i, t := range targets {
		if len(t.Body) > h2MaxBody {
			return nil, false
		}
		u, err := url.Parse(t.URL)
		if err != nil {
			return nil, false
		}
		fields := []hpack.HeaderField{{Name: ":method", Value: targetMethod(t)}, {Name: ":scheme", Value: u.Scheme},
			{Name: ":authority", Value: u.Host}, {Name: ":path", Value: u.RequestURI()}}
		if len(t.Header.Values("User-Agent")) == 0 {
			fields = append(fields, hpack.HeaderField{Name: "user-agent", Value: "httpslab"})
		}
		for k, vs := range t.Header {
			k = strings.ToLower(k)
			if k == "host" || k == "connection" || k == "content-length" {
				continue
			}
			for _, v := range vs {
				fields = append(fields, hpack.HeaderField{Name: k, Value: v})
			}
		}
		if t.Body != nil {
			fields = append(fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(t.Body))})
		}
		out[i] = h2Request{fields: fields, body: t.Body}
	}
	return out, true
}

// h2Stream is a request in flight.
type h2Stream struct {
	ev       event
	sent     int64
	received int64 // DATA bytes since the last stream WINDOW_UPDATE
}

// h2Worker drives one HTTP/2 connection slot.
type h2Worker struct {
	run      *runner
	reqs     []h2Request
	next     int
	rec      *recorder
	tc       *tls.Conn
	bw       *bufio.Writer
	fr       *http2.Framer
	br       *bufio.Reader
	block    []byte // header block fragments until END_HEADERS
	enc      *hpack.Encoder
	encBuf   bytes.Buffer
	streams  map[uint32]*h2Stream
	free     []*h2Stream
	nextID   uint32
	limit    int   // concurrent streams: min(-m, the server's maximum)
	used     int   // streams opened on this connection
	draining bool  // GOAWAY received or request budget spent
	connRecv int64 // DATA bytes since the last connection WINDOW_UPDATE
}

func newH2Worker(r *runner, reqs []h2Request, i int) *h2Worker {
	w := &h2Worker{run: r, reqs: reqs, next: i % len(reqs), rec: newRecorder(r.events), streams: map[uint32]*h2Stream{}}
	return w
}

func (w *h2Worker) loop() {
	defer w.rec.flush()
	defer w.closeConn(nil)
	for {
		t, ok := w.run.src.next()
		if !ok {
			return
		}
		start := w.run.now()
		if err := w.connect(); err != nil {
			if !w.run.src.stopped.Load() {
				w.rec.add(event{intended: t, start: start, end: w.run.now(), err: err})
			}
			continue
		}
		if !w.serve(t, start) {
			return
		}
	}
}

// serve runs requests on the open connection, starting with ticket t. It
// reports false when the run has no more tickets.
func (w *h2Worker) serve(t ticket, start int64) bool {
	more := true
	w.open(t, start)
	for len(w.streams) > 0 {
		for more && !w.draining && len(w.streams) < w.limit {
			t, ok := w.run.src.tryNext()
			if !ok {
				more = false
				break
			}
			w.open(t, w.run.now())
		}
		if err := w.bw.Flush(); err != nil {
			w.closeConn(fmt.Errorf("write: %w", err))
			return more
		}
		yieldForResponse()
		if err := w.readUntilDone(); err != nil {
			w.closeConn(err)
			return more
		}
	}
	if w.draining {
		w.closeConn(nil)
	}
	return more
}

// open writes the HEADERS (and DATA) frames of the next target's request.
func (w *h2Worker) open(t ticket, start int64) {
	req := &w.reqs[w.next]
	w.next = (w.next + 1) % len(w.reqs)
	var s *h2Stream
	if n := len(w.free); n > 0 {
		s, w.free = w.free[n-1], w.free[:n-1]
	} else {
		s = &h2Stream{}
	}
	*s = h2Stream{ev: event{intended: t, start: start}}
	id := w.nextID
	w.nextID += 2
	w.streams[id] = s
	w.used++
	if k := w.run.cfg.RequestsPerConn; k > 0 && w.used >= k {
		w.draining = true
	}
	w.encBuf.Reset()
	for _, f := range req.fields {
		_ = w.enc.WriteField(f)
	}
	_ = w.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: w.encBuf.Bytes(),
		EndStream: req.body == nil, EndHeaders: true})
	if req.body != nil {
		_ = w.fr.WriteData(id, true, req.body)
	}
	s.sent = w.run.now()
}

// readUntilDone reads frames until at least one stream has ended and no
// further frame is buffered, so that the streams that ended together are
// replaced in one write.
func (w *h2Worker) readUntilDone() error {
	if err := w.tc.SetReadDeadline(time.Now().Add(w.run.cfg.Timeout)); err != nil {
		return err
	}
	n := len(w.streams)
	for len(w.streams) == n || w.br.Buffered() > 0 && len(w.streams) > 0 {
		f, err := w.fr.ReadFrame()
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
		if err := w.handle(f); err != nil {
			return err
		}
	}
	return nil
}

func (w *h2Worker) handle(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.HeadersFrame:
		return w.onHeaders(f)
	case *http2.ContinuationFrame:
		w.block = append(w.block, f.HeaderBlockFragment()...)
		if f.HeadersEnded() {
			return w.endHeaders(f.StreamID)
		}
	case *http2.DataFrame:
		return w.onData(f)
	case *http2.RSTStreamFrame:
		w.endStream(f.StreamID, fmt.Errorf("stream reset by the server: %v", f.ErrCode))
	case *http2.SettingsFrame:
		return w.onSettings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			_ = w.fr.WritePing(true, f.Data)
			return w.bw.Flush()
		}
	case *http2.GoAwayFrame:
		w.draining = true
		for id := range w.streams {
			if id > f.LastStreamID {
				w.endStream(id, errors.New("stream refused: the server sent GOAWAY"))
			}
		}
	}
	return nil
}

func (w *h2Worker) onHeaders(f *http2.HeadersFrame) error {
	s := w.streams[f.StreamID]
	if s != nil && s.ev.wait == 0 {
		s.ev.wait = w.run.now() - s.sent
	}
	w.block = append(w.block[:0], f.HeaderBlockFragment()...)
	if f.HeadersEnded() {
		if err := w.endHeaders(f.StreamID); err != nil {
			return err
		}
	}
	if f.StreamEnded() {
		w.endStream(f.StreamID, nil)
	}
	return nil
}

// endHeaders notes the final status of a stream; 1xx headers are interim.
func (w *h2Worker) endHeaders(id uint32) error {
	status, err := skimStatus(w.block)
	if err != nil {
		return fmt.Errorf("reading HTTP/2 response headers: %w", err)
	}
	if s := w.streams[id]; s != nil && status >= 200 {
		s.ev.status = status
	}
	return nil
}

func (w *h2Worker) onData(f *http2.DataFrame) error {
	n := int64(f.Length)
	w.connRecv += n
	s := w.streams[f.StreamID]
	if s != nil {
		s.ev.bytes += int64(len(f.Data()))
		s.received += n
		if s.received > h2Window/2 && !f.StreamEnded() {
			_ = w.fr.WriteWindowUpdate(f.StreamID, uint32(s.received))
			s.received = 0
		}
	}
	if w.connRecv > h2Window/2 {
		_ = w.fr.WriteWindowUpdate(0, uint32(w.connRecv))
		w.connRecv = 0
	}
	if f.StreamEnded() {
		w.endStream(f.StreamID, nil)
	}
	return nil
}

func (w *h2Worker) onSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	if v, ok := f.Value(http2.SettingHeaderTableSize); ok {
		w.enc.SetMaxDynamicTableSizeLimit(v)
	}
	if v, ok := f.Value(http2.SettingMaxConcurrentStreams); ok {
		w.limit = max(min(w.run.cfg.Streams, int(v)), 1)
	}
	if err := w.fr.WriteSettingsAck(); err != nil {
		return err
	}
	return w.bw.Flush()
}

// endStream records a finished (or failed) stream.
func (w *h2Worker) endStream(id uint32, err error) {
	s := w.streams[id]
	if s == nil {
		return
	}
	delete(w.streams, id)
	s.ev.end = w.run.now()
	if err == nil && s.ev.status == 0 {
		err = errors.New("HTTP/2 stream ended without a response")
	}
	s.ev.err = err
	w.rec.add(s.ev)
	w.free = append(w.free, s)
}
