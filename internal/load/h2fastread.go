package load

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/net/http2"
)

// readLoop reads frames until the connection fails or is closed. The read
// deadline moves when a stream ends (at most every hundredth of the
// timeout): a connection on which no stream ends for the timeout fails
// with all its streams.
func (c *h2Conn) readLoop() {
	defer close(c.dead)
	defer c.rec.flush()
	c.refreshDeadline(time.Now())
	for {
		f, err := c.fr.ReadFrame()
		if err == nil {
			err = c.handle(f)
		}
		if err != nil {
			c.stop(err)
			return
		}
	}
}

// stop fails the streams still in flight: with the write error if the
// worker aborted, with err unless the worker closed the connection on
// purpose.
func (c *h2Conn) stop(err error) {
	c.run.conns.remove(c.nc)
	stalled := c.stalledBodies(err)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.writeErr != nil:
		err = c.writeErr
	case c.closing.Load():
		err = errors.New("connection closed with the stream in flight")
	default:
		err = fmt.Errorf("read: %w", err)
	}
	c.stopped = true
	for _, id := range stalled {
		c.failStreamLocked(id, errFlowStall)
	}
	c.failStreamsLocked(err)
}

// refreshDeadline moves the connection's deadline, for reads and writes
// alike: a server that grants windows and then stops reading would
// otherwise block the worker's write of a body for ever, holding the
// write lock that the reader needs for its acknowledgements.
func (c *h2Conn) refreshDeadline(now time.Time) {
	if now.Sub(c.refreshed) >= c.run.cfg.Timeout/100 {
		c.refreshed = now
		_ = c.nc.SetDeadline(now.Add(c.run.cfg.Timeout))
	}
}

func (c *h2Conn) handle(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.HeadersFrame:
		return c.onHeaders(f)
	case *http2.ContinuationFrame:
		if err := c.addFragment(f.HeaderBlockFragment()); err != nil {
			return err
		}
		if f.HeadersEnded() {
			return c.endBlock(f.StreamID)
		}
	case *http2.DataFrame:
		c.onData(f)
	case *http2.RSTStreamFrame:
		// REFUSED_STREAM says the server did not process the request
		// (RFC 9113, section 8.7): nginx refuses the streams past its
		// 128 that arrive before the client has its SETTINGS. The request
		// is sent again, as after GOAWAY.
		if f.ErrCode != http2.ErrCodeRefusedStream || !c.refuse(f.StreamID) {
			c.endStream(f.StreamID, fmt.Errorf("stream reset by the server: %v", f.ErrCode))
		}
	case *http2.SettingsFrame:
		return c.onSettings(f)
	case *http2.PingFrame:
		if !f.IsAck() {
			return c.write(func() error { return c.fr.WritePing(true, f.Data) })
		}
	case *http2.GoAwayFrame:
		c.onGoAway(f)
	case *http2.WindowUpdateFrame:
		return c.onWindowUpdate(f)
	}
	return nil
}

// write runs a frame write of the reader under the write lock and flushes.
func (c *h2Conn) write(f func() error) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := f(); err != nil {
		return err
	}
	return c.bw.Flush()
}

func (c *h2Conn) onHeaders(f *http2.HeadersFrame) error {
	c.mu.Lock()
	if s := c.streams[f.StreamID]; s != nil && s.ev.wait == 0 {
		s.ev.wait = c.run.now() - s.sent
	}
	c.mu.Unlock()
	c.block = c.block[:0]
	if err := c.addFragment(f.HeaderBlockFragment()); err != nil {
		return err
	}
	c.blockEnds = f.StreamEnded()
	if f.HeadersEnded() {
		return c.endBlock(f.StreamID)
	}
	return nil
}

// addFragment appends a header block fragment to the block. A block
// that grows past the header limit as sent fails the connection, as in
// x/net's Framer: the stream cannot be skipped without reading its block
// to the end, and a server sending CONTINUATION frames without end never
// gets there.
func (c *h2Conn) addFragment(frag []byte) error {
	if limit := c.run.cfg.MaxHeaderBytes; int64(len(c.block))+int64(len(frag)) > limit {
		return &HeaderTooLargeError{Limit: limit}
	}
	c.block = append(c.block, frag...)
	return nil
}

// endBlock handles a complete header block. END_STREAM comes on the
// HEADERS frame, but when CONTINUATION frames follow, the stream ends
// only with the last of them (RFC 9113, section 8.1).
func (c *h2Conn) endBlock(id uint32) error {
	if err := c.endHeaders(id); err != nil {
		return err
	}
	if c.blockEnds {
		c.endStream(id, nil)
	}
	return nil
}

// endHeaders notes the final status of a stream; 1xx headers are interim.
// A block whose fields decode past the header limit fails its stream
// alone: with no dynamic table, the connection's HPACK state is intact.
// So does a stream whose blocks together, 1xx responses included, are
// past the limit as sent: a server sending 102s without end.
func (c *h2Conn) endHeaders(id uint32) error {
	status, size, err := skimStatus(c.block)
	limit := uint64(c.run.cfg.MaxHeaderBytes)
	if err == nil && size > limit {
		if size, err = headerListSize(c.block, limit); err == nil && size > limit {
			c.cancelStream(id, &HeaderTooLargeError{Limit: int64(limit)})
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("reading HTTP/2 response headers: %w", err)
	}
	c.mu.Lock()
	s := c.streams[id]
	if s != nil && status >= 200 {
		s.ev.status = status
	}
	over := false
	if s != nil {
		s.header += int64(len(c.block))
		over = s.header > int64(limit)
	}
	c.mu.Unlock()
	if over {
		c.cancelStream(id, &HeaderTooLargeError{Limit: int64(limit)})
	}
	return nil
}

func (c *h2Conn) onData(f *http2.DataFrame) {
	n := int64(f.Length)
	c.connRecv += n
	var streamUpdate uint32
	c.mu.Lock()
	if s := c.streams[f.StreamID]; s != nil {
		s.ev.bytes += int64(len(f.Data()))
		s.received += n
		if s.received > h2Window/2 && !f.StreamEnded() {
			streamUpdate, s.received = uint32(s.received), 0
		}
	}
	c.mu.Unlock()
	if streamUpdate > 0 {
		_ = c.write(func() error { return c.fr.WriteWindowUpdate(f.StreamID, streamUpdate) })
	}
	if c.connRecv > h2Window/2 {
		n := uint32(c.connRecv)
		c.connRecv = 0
		_ = c.write(func() error { return c.fr.WriteWindowUpdate(0, n) })
	}
	if f.StreamEnded() {
		c.endStream(f.StreamID, nil)
	}
}

// onSettings applies the server's settings (h2flow.go), acknowledges
// them and wakes the worker, whose stream limit or windows may have
// changed. The first SETTINGS frame settles the connection.
func (c *h2Conn) onSettings(f *http2.SettingsFrame) error {
	if f.IsAck() {
		return nil
	}
	err := c.write(func() error {
		if err := c.applySettings(f); err != nil {
			return err
		}
		return c.fr.WriteSettingsAck()
	})
	c.settle.Do(func() { close(c.settled) })
	c.wakeWorker()
	return err
}

// onGoAway stops new streams. Those the server will not process go back
// to the worker for the next connection, up to maxRefused times each.
func (c *h2Conn) onGoAway(f *http2.GoAwayFrame) {
	var failed []uint32
	refused := 0
	c.mu.Lock()
	c.goaway.Store(true)
	for id, s := range c.streams {
		if id <= f.LastStreamID {
			continue
		}
		if !c.refuseLocked(id, s) {
			failed = append(failed, id)
			continue
		}
		refused++
	}
	c.mu.Unlock()
	for range refused {
		c.done <- struct{}{}
	}
	for _, id := range failed {
		c.endStream(id, errors.New("stream refused: the server sent GOAWAY"))
	}
}

// refuse hands the request of a stream that the server refused
// unprocessed back to the worker, unless connections that answered
// nothing refused it maxRefused times already; it reports whether it did.
func (c *h2Conn) refuse(id uint32) bool {
	c.mu.Lock()
	s := c.streams[id]
	ok := s != nil && c.refuseLocked(id, s)
	c.mu.Unlock()
	if ok {
		c.done <- struct{}{}
	}
	return ok
}

// refuseLocked moves stream id's request to c.refused; the caller holds
// c.mu and, when it reports true, sends the stream's token on c.done.
func (c *h2Conn) refuseLocked(id uint32, s *h2Stream) bool {
	barren := 0
	if c.answered == 0 {
		barren = 1
	}
	if s.refused+barren > maxRefused {
		return false
	}
	delete(c.streams, id)
	c.refused = append(c.refused, h2Pending{t: s.ev.intended, start: s.ev.start, target: s.target, refused: s.refused + barren})
	c.nrefused.Add(1)
	c.free = append(c.free, s)
	return true
}

// cancelStream fails a stream with err and, unless the server has ended
// it, resets it so that the server stops sending its body.
func (c *h2Conn) cancelStream(id uint32, err error) {
	c.endStream(id, err)
	if !c.blockEnds {
		_ = c.write(func() error { return c.fr.WriteRSTStream(id, http2.ErrCodeCancel) })
	}
}

// endStream records a finished (or failed) stream and tells the worker.
func (c *h2Conn) endStream(id uint32, err error) {
	c.mu.Lock()
	s := c.streams[id]
	if s == nil {
		c.mu.Unlock()
		return
	}
	delete(c.streams, id)
	ev := s.ev
	c.free = append(c.free, s)
	if err == nil {
		c.answered++
	}
	c.mu.Unlock()
	if c.nsending.Load() > 0 {
		c.dropBody(id, err == nil)
	}
	now := time.Now()
	ev.end = int64(now.Sub(c.run.start))
	if err == nil && ev.status == 0 {
		err = errors.New("HTTP/2 stream ended without a response")
	}
	ev.err = err
	c.rec.add(ev)
	c.refreshDeadline(now)
	c.done <- struct{}{}
}
