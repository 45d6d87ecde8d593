package load

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/net/http2"
)

// Send-side flow control of the fast HTTP/2 client (RFC 9113, sections
// 5.2 and 6.9): a request body goes out in DATA frames no larger than the
// server's SETTINGS_MAX_FRAME_SIZE, and only as far as both the
// connection's window and the stream's allow. Windows open with the
// server's SETTINGS_INITIAL_WINDOW_SIZE (65,535 until it says otherwise)
// and grow with its WINDOW_UPDATE frames; a change of the initial size
// moves the windows of the open streams by the difference, which can make
// them negative. The rest of a body waits in h2Flow.sending until the
// reader sees the windows grow and wakes the worker, which sends it: the
// worker is the only writer of DATA, as in x/net's client, where the
// goroutine of each request writes its body.

// h2Flow is a connection's send-side state, guarded by h2Conn.wmu.
type h2Flow struct {
	window  int64    // the connection's send window
	initial int64    // the server's SETTINGS_INITIAL_WINDOW_SIZE
	frame   int      // the server's SETTINGS_MAX_FRAME_SIZE
	sending []h2Send // bodies not sent in full, in the order of their streams
}

// h2Send is a request body not yet sent in full.
type h2Send struct {
	id     uint32
	rest   []byte
	window int64 // the stream's send window
}

// Initial values of the settings that concern the client's sending
// (RFC 9113, section 6.5.2).
const (
	h2InitialWindow = 65535
	h2InitialFrame  = 16384
	h2MaxWindow     = 1<<31 - 1
)

func newH2Flow() h2Flow {
	return h2Flow{window: h2InitialWindow, initial: h2InitialWindow, frame: h2InitialFrame}
}

// errNoStreams fails requests that waited for a server that allows no
// concurrent stream to allow one.
var errNoStreams = errors.New("the server allowed no concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS 0) and did not raise the limit")

// flowStallError fails a request whose body the server's flow-control
// window kept back until the connection timed out. It is a timeout (as a
// net.Error), named for its cause: "timeout" alone blamed a slow answer.
type flowStallError struct{}

func (flowStallError) Error() string {
	return "timeout: the server's flow-control window stayed shut with the request body unsent"
}

// Timeout reports true: the request failed by the timeout.
func (flowStallError) Timeout() bool { return true }

// Temporary reports false, as net.Error asks.
func (flowStallError) Temporary() bool { return false }

var errFlowStall error = flowStallError{}

// stalledBodies returns, when the connection failed by its timeout, the
// streams whose bodies were still waiting for a window.
func (c *h2Conn) stalledBodies(err error) []uint32 {
	if !errors.Is(err, os.ErrDeadlineExceeded) || c.nsending.Load() == 0 {
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	ids := make([]uint32, len(c.flow.sending))
	for i, s := range c.flow.sending {
		ids[i] = s.id
	}
	return ids
}

// startBody sends what the windows allow of stream id's body and keeps
// the rest; the caller holds c.wmu and flushes.
func (c *h2Conn) startBody(id uint32, body []byte) {
	c.flow.sending = append(c.flow.sending, h2Send{id: id, rest: body, window: c.flow.initial})
	c.sendBodies()
}

// sendBodies sends the waiting bodies as far as the windows allow, in
// order; the caller holds c.wmu and flushes.
func (c *h2Conn) sendBodies() {
	f := &c.flow
	kept := f.sending[:0]
	for _, s := range f.sending {
		for len(s.rest) > 0 && s.window > 0 && f.window > 0 {
			n := int(min(int64(len(s.rest)), int64(f.frame), s.window, f.window))
			_ = c.fr.WriteData(s.id, n == len(s.rest), s.rest[:n])
			s.rest = s.rest[n:]
			s.window -= int64(n)
			f.window -= int64(n)
		}
		if len(s.rest) > 0 {
			kept = append(kept, s)
		}
	}
	clear(f.sending[len(kept):])
	f.sending = kept
	c.nsending.Store(int32(len(kept)))
}

// flushBodies sends what the grown windows allow; the worker calls it
// when the reader wakes it.
func (c *h2Conn) flushBodies() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.sendBodies()
	return c.bw.Flush()
}

// dropBody forgets the unsent rest of a stream's body once the stream has
// ended; reset says the server ended it with a response rather than a
// reset, so that the client's half is still open and must be reset.
func (c *h2Conn) dropBody(id uint32, reset bool) {
	_ = c.write(func() error {
		f := &c.flow
		for i, s := range f.sending {
			if s.id == id {
				f.sending = append(f.sending[:i], f.sending[i+1:]...)
				c.nsending.Store(int32(len(f.sending)))
				if reset {
					return c.fr.WriteRSTStream(id, http2.ErrCodeCancel)
				}
				return nil
			}
		}
		return nil
	})
}

// onWindowUpdate grows a window and wakes the worker if a body waits.
// A window past 2^31-1 is a flow-control error of the connection or of
// the stream (RFC 9113, section 6.9.1).
func (c *h2Conn) onWindowUpdate(f *http2.WindowUpdateFrame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	fl := &c.flow
	inc := int64(f.Increment)
	if f.StreamID == 0 {
		if fl.window+inc > h2MaxWindow {
			return errors.New("the server's WINDOW_UPDATE grew the connection's window past 2^31-1 (FLOW_CONTROL_ERROR)")
		}
		fl.window += inc
	}
	for i := range fl.sending {
		if s := &fl.sending[i]; s.id == f.StreamID {
			s.window = min(s.window+inc, h2MaxWindow)
		}
	}
	if len(fl.sending) > 0 {
		c.wakeWorker()
	}
	return nil
}

// applySettings takes the server's settings that concern sending and the
// stream limit; the caller holds c.wmu.
func (c *h2Conn) applySettings(f *http2.SettingsFrame) error {
	fl := &c.flow
	return f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			return fmt.Errorf("the server's SETTINGS: %w", err)
		}
		switch s.ID {
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - fl.initial
			fl.initial = int64(s.Val)
			for i := range fl.sending {
				fl.sending[i].window += delta
			}
		case http2.SettingMaxFrameSize:
			fl.frame = int(s.Val)
		case http2.SettingMaxConcurrentStreams:
			c.limit.Store(int32(min(c.run.cfg.Streams, int(s.Val))))
			c.run.noteServerStreams(s.Val)
		case http2.SettingHeaderTableSize:
			c.enc.SetMaxDynamicTableSizeLimit(s.Val)
			clear(c.blocks)
		}
		return nil
	})
}

// wakeWorker tells the worker that a window grew or the stream limit
// changed, without blocking: one token stands for any number of changes.
func (c *h2Conn) wakeWorker() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// awaitStreams waits, while the server allows no stream at all, for a
// SETTINGS frame that raises the limit: until the oldest pending request
// has waited out the timeout, or the run's time is up, when the pending
// requests fail. It reports whether streams may open again.
func (w *h2Worker) awaitStreams(c *h2Conn) bool {
	r := w.run
	oldest := w.pending[0].start
	for _, p := range w.pending {
		oldest = min(oldest, p.start)
	}
	until := oldest + int64(r.cfg.Timeout)
	if r.src.deadline > 0 {
		until = min(until, r.src.deadline)
	}
	t := time.NewTimer(time.Duration(until - r.now()))
	defer t.Stop()
	for c.limit.Load() == 0 && !c.goaway.Load() {
		select {
		case <-c.wake:
		case <-c.dead:
			return false // the pending requests go to a new connection
		case <-r.ctx.Done():
			return false
		case <-t.C:
			r.noStreams.Store(true)
			w.failPending(errNoStreams)
			return false
		}
	}
	return true
}

// awaitSettled sends the client preface, which otherwise goes out with
// the first request, and waits for the server's first SETTINGS frame,
// within the timeout.
func (c *h2Conn) awaitSettled() {
	c.wmu.Lock()
	err := c.bw.Flush()
	c.wmu.Unlock()
	if err != nil {
		return // the first request's write fails the same way
	}
	t := time.NewTimer(c.run.cfg.Timeout)
	defer t.Stop()
	select {
	case <-c.settled:
	case <-c.dead:
	case <-c.run.ctx.Done():
	case <-t.C:
	}
}
