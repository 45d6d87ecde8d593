package load

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2Conn is one connection of the fast HTTP/2 client.
type h2Conn struct {
	run *runner
	nc  net.Conn // TLS, or plain TCP for h2c

	// wmu guards the write side: the buffered writer, the framer's write
	// methods and the HPACK encoder. The reader takes it for its acks.
	wmu    sync.Mutex
	bw     *bufio.Writer
	fr     *http2.Framer
	enc    *hpack.Encoder
	encBuf bytes.Buffer
	// blocks caches each target's header block once it encodes to table
	// references only: then it cannot change the table, and stays valid
	// until an encoding that does (or a new table size) clears the cache.
	blocks [][]byte

	mu       sync.Mutex // guards streams, free, nextID, writeErr, stopped and refused
	streams  map[uint32]*h2Stream
	free     []*h2Stream
	nextID   uint32
	writeErr error
	stopped  bool // the reader has stopped and failed the streams in flight
	answered int  // streams that ended with a response
	// refused are the requests the server refused unprocessed: by
	// GOAWAY, for the next connection, or by REFUSED_STREAM, to be sent
	// again on this one. nrefused counts them, so that the worker takes
	// the lock only when there are some.
	refused  []h2Pending
	nrefused atomic.Int32

	// flow is the send side's flow control (h2flow.go), guarded by wmu;
	// nsending is len(flow.sending), read without the lock.
	flow     h2Flow
	nsending atomic.Int32

	limit   atomic.Int32  // concurrent streams: min(-m, the server's maximum), 0 allowed
	goaway  atomic.Bool   // the server sent GOAWAY: no new streams
	closing atomic.Bool   // the worker closes the connection: not an error
	done    chan struct{} // a token per ended stream, for the worker
	dead    chan struct{} // closed when the reader has stopped
	wake    chan struct{} // a window grew or the stream limit changed
	settled chan struct{} // closed when the server's first SETTINGS came
	settle  sync.Once

	// Reader-only state.
	rec       *recorder
	br        *bufio.Reader
	block     []byte // header block fragments until END_HEADERS
	blockEnds bool   // the HEADERS frame of block had END_STREAM
	connRecv  int64  // DATA bytes since the last connection WINDOW_UPDATE
	refreshed time.Time
}

// h2Stream is a request in flight.
type h2Stream struct {
	ev       event
	sent     int64
	received int64 // DATA bytes since the last stream WINDOW_UPDATE
	header   int64 // header block bytes received, 1xx responses included
	target   int
	refused  int
}

// connect dials, checks ALPN (over TLS; on an http:// URL the client
// speaks h2c with prior knowledge), writes the client preface with
// settings that open the flow-control windows wide and starts the reader.
func (w *h2Worker) connect() (*h2Conn, error) {
	r := w.run
	var ev event
	nc, err := r.ep.dial(r.ctx, time.Now().Add(r.cfg.Timeout), r.now, &ev)
	if err == nil && r.ep.tls != nil {
		err = requireH2(nc) // a connection without h2 is a failed setup
	}
	if err != nil && r.src.halted() {
		return nil, err // cut short by the interrupt, not failed
	}
	ev.err = err
	w.rec.add(ev)
	if err != nil {
		return nil, err
	}
	if !r.conns.add(nc) {
		return nil, errors.New("run stopped")
	}
	c := &h2Conn{run: r, nc: nc, streams: map[uint32]*h2Stream{}, nextID: 1,
		done: make(chan struct{}, r.cfg.Streams), dead: make(chan struct{}), wake: make(chan struct{}, 1),
		settled: make(chan struct{}), flow: newH2Flow(), rec: newRecorder(r.events)}
	c.limit.Store(int32(r.cfg.Streams))
	c.bw = bufio.NewWriterSize(nc, 16<<10)
	c.br = bufio.NewReaderSize(nc, 16<<10)
	c.fr = http2.NewFramer(c.bw, c.br)
	c.fr.SetReuseFrames()
	// The client leaves SETTINGS_MAX_FRAME_SIZE at its initial 16384, so
	// a longer frame is a protocol error (RFC 9113, section 4.2). Said
	// here, an HTTP/1.1 answer to the preface ("HTTP/1.1 400", read as a
	// 4.7 MB frame) fails at once with x/net's note instead of waiting
	// out the timeout for a payload that never comes.
	c.fr.SetMaxReadFrameSize(16384)
	c.enc = hpack.NewEncoder(&c.encBuf) // a fresh table per connection
	if err := c.preface(); err != nil {
		r.conns.remove(nc)
		return nil, fmt.Errorf("starting HTTP/2: %w", err)
	}
	go c.readLoop()
	return c, nil
}

func (c *h2Conn) preface() error {
	if _, err := c.bw.WriteString(http2.ClientPreface); err != nil {
		return err
	}
	// A header table size of 0 lets the reader skim response headers for
	// the status without keeping HPACK state (hpack.go). The header list
	// size tells the server the header limit (advisory, RFC 9113 section
	// 6.5.2): a server that honours it answers 431 or resets the stream.
	err := c.fr.WriteSettings(http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0},
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2Window},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: uint32(min(c.run.cfg.MaxHeaderBytes, math.MaxUint32))})
	if err == nil {
		err = c.fr.WriteWindowUpdate(0, h2Window)
	}
	return err
}

// headerBlock returns the HPACK block of target i; the caller holds c.wmu.
func (c *h2Conn) headerBlock(i int, req *h2Request) []byte {
	if c.blocks == nil {
		c.blocks = make([][]byte, len(c.run.cfg.Targets))
	}
	if b := c.blocks[i]; b != nil {
		return b
	}
	c.encBuf.Reset()
	for _, f := range req.fields {
		_ = c.enc.WriteField(f)
	}
	b := c.encBuf.Bytes()
	if !allIndexed(b, len(req.fields)) {
		clear(c.blocks)
		return b
	}
	c.blocks[i] = bytes.Clone(b)
	return c.blocks[i]
}

// allIndexed reports whether an HPACK block of n fields is n one-byte
// indexed field representations, which leave the dynamic table as it is.
func allIndexed(b []byte, n int) bool {
	if len(b) != n {
		return false
	}
	for _, x := range b {
		if x&0x80 == 0 || x == 0xff {
			return false
		}
	}
	return true
}

// register adds a stream for a request about to be written, unless the
// server has sent GOAWAY or the reader has stopped (no one would end the
// stream: the request goes to the next connection). Its total time counts
// from p.start (before the dial for a connection's first request), its
// waiting time from sent.
func (c *h2Conn) register(p h2Pending, sent int64) (uint32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.goaway.Load() || c.stopped {
		return 0, false
	}
	var s *h2Stream
	if n := len(c.free); n > 0 {
		s, c.free = c.free[n-1], c.free[:n-1]
	} else {
		s = &h2Stream{}
	}
	*s = h2Stream{ev: event{intended: p.t, start: p.start}, sent: sent, target: p.target, refused: p.refused}
	id := c.nextID
	c.nextID += 2
	c.streams[id] = s
	return id, true
}

// close ends a connection whose streams have all ended.
func (c *h2Conn) close() {
	c.closing.Store(true)
	c.run.conns.remove(c.nc)
	<-c.dead
}

// abort closes the connection after a write error: the reader then fails
// the streams in flight with err.
func (c *h2Conn) abort(err error) {
	c.mu.Lock()
	c.writeErr = err
	c.mu.Unlock()
	c.run.conns.remove(c.nc)
	<-c.dead
}

// failStreamsLocked records the streams in flight as failed, unless the
// run was interrupted.
func (c *h2Conn) failStreamsLocked(err error) {
	for id := range c.streams {
		c.failStreamLocked(id, err)
	}
}

// failStreamLocked records stream id, if in flight, as failed with err,
// unless the run was interrupted; the caller holds c.mu.
func (c *h2Conn) failStreamLocked(id uint32, err error) {
	s := c.streams[id]
	if s == nil {
		return
	}
	delete(c.streams, id)
	if !c.run.src.halted() {
		s.ev.end, s.ev.err = c.run.now(), err
		c.rec.add(s.ev)
	}
}
