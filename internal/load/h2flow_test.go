package load

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// flowServer is a raw HTTP/2 server that opens no stream window
// (SETTINGS_INITIAL_WINDOW_SIZE 0) and then grants windows a little at a
// time, as a server that reads bodies slowly does: 1,000 bytes when a
// stream opens, 64 KiB more whenever it is below that, the connection's
// back to 65,535 when below half. It counts each DATA frame the client
// sends past a window or the frame size as a violation (and resets its
// stream with FLOW_CONTROL_ERROR, as nginx does), and each body that
// arrived whole. Until the client acknowledges the server's SETTINGS, its
// streams have the initial window of 65,535 (RFC 9113, section 6.9.2).
type flowServer struct {
	violations, bodies atomic.Int64
	bodySize           int
	stingy             bool // grants no window at all
}

// flowConn is the server's view of one connection's windows.
type flowConn struct {
	conn     int64
	initial  int64
	streams  map[uint32]int64 // open streams' windows
	received map[uint32]int
}

func (s *flowServer) serve(c *rawH2) {
	fc := &flowConn{conn: 65535, initial: 65535, streams: map[uint32]int64{}, received: map[uint32]int{}}
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() {
				for id := range fc.streams {
					fc.streams[id] -= fc.initial // the initial size becomes 0
				}
				fc.initial = 0
				err = s.grant(c, fc)
			} else {
				err = c.fr.WriteSettingsAck()
			}
		case *http2.HeadersFrame:
			fc.streams[f.StreamID] = fc.initial
			if !s.stingy {
				fc.streams[f.StreamID] += 1000
				err = c.fr.WriteWindowUpdate(f.StreamID, 1000)
			}
		case *http2.DataFrame:
			err = s.data(c, f, fc)
		}
		if err != nil {
			return
		}
	}
}

// data takes a DATA frame: it checks the windows, answers a body that
// ended and grants more.
func (s *flowServer) data(c *rawH2, f *http2.DataFrame, fc *flowConn) error {
	n, id := int64(f.Length), f.StreamID
	w, open := fc.streams[id]
	fc.conn -= n
	if n > 16384 || !open || n > w || fc.conn < 0 {
		s.violations.Add(1)
		delete(fc.streams, id)
		return c.fr.WriteRSTStream(id, http2.ErrCodeFlowControl)
	}
	fc.streams[id] -= n
	fc.received[id] += int(n)
	if f.StreamEnded() {
		delete(fc.streams, id)
		if fc.received[id] == s.bodySize {
			s.bodies.Add(1)
		}
		block := hpackBlock(hpack.HeaderField{Name: ":status", Value: "200"})
		if err := c.writeBlock(id, block, true); err != nil {
			return err
		}
	}
	return s.grant(c, fc)
}

// grant tops up the windows below their thresholds.
func (s *flowServer) grant(c *rawH2, fc *flowConn) error {
	if s.stingy {
		return nil
	}
	for id, w := range fc.streams {
		if w < 1000 {
			if err := c.fr.WriteWindowUpdate(id, 64<<10); err != nil {
				return err
			}
			fc.streams[id] += 64 << 10
		}
	}
	if fc.conn < 32<<10 {
		if err := c.fr.WriteWindowUpdate(0, uint32(65535-fc.conn)); err != nil {
			return err
		}
		fc.conn = 65535
	}
	return nil
}

// TestHTTP2FlowControl sends request bodies to a server that grants its
// windows a little at a time. The fast client sent each body at once
// whatever the window (156,747 FLOW_CONTROL_ERROR resets in 3 s after a
// SETTINGS_INITIAL_WINDOW_SIZE of 0, reported as the server's fault); it
// must send no byte past a window, in frames no larger than 16 KiB, and
// every body must arrive whole. Bodies over 16 KiB, which went through
// net/http, now go through the fast client too.
func TestHTTP2FlowControl(t *testing.T) {
	for _, size := range []int{1 << 10, 100 << 10, 1 << 20} {
		s := &flowServer{bodySize: size}
		url, _ := serveRawH2(t, []http2.Setting{{ID: http2.SettingInitialWindowSize, Val: 0}}, s.serve)
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: url, Body: bytes.Repeat([]byte("b"), size)}},
			Protocol: transport.HTTP2, Conns: 2, Streams: 4, Requests: 40, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests != 40 || res.Errors != 0 || s.violations.Load() != 0 || s.bodies.Load() != 40 {
			t.Errorf("%d-byte bodies: %d completed, %d failed %v; server saw %d flow-control violations, %d whole bodies; want 40, 0, 0, 40",
				size, res.Requests, res.Errors, res.ErrorCounts, s.violations.Load(), s.bodies.Load())
		}
	}
}

// TestHTTP2WindowNeverOpens runs against a server that never opens its
// window: the requests whose bodies wait fail by the timeout, saying so,
// and no byte goes past the window.
func TestHTTP2WindowNeverOpens(t *testing.T) {
	t.Parallel()
	s := &flowServer{bodySize: 100 << 10, stingy: true}
	url, _ := serveRawH2(t, []http2.Setting{{ID: http2.SettingInitialWindowSize, Val: 0}}, s.serve)
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: url, Body: bytes.Repeat([]byte("b"), s.bodySize)}},
		Protocol: transport.HTTP2, Requests: 2, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors != 2 || !errorsAre(res, errFlowStall) || s.violations.Load() != 0 {
		t.Errorf("%d completed, %d failed %v, %d flow-control violations; want 2 failed with %q, none",
			res.Requests, res.Errors, res.ErrorCounts, s.violations.Load(), errFlowStall)
	}
}

// TestHTTP2ServerStopsReading posts a 64 MiB body to a server that
// grants every window and then reads nothing but sends a PING: the write
// of the body blocks once the socket buffers are full, and the reader
// waits for the write lock to acknowledge the PING. The run must still
// end by the timeout, the request failed; without a write deadline it
// hung for ever.
func TestHTTP2ServerStopsReading(t *testing.T) {
	stop := make(chan struct{})
	url, _ := serveRawH2(t, []http2.Setting{{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1}}, func(c *rawH2) {
		if c.fr.WriteWindowUpdate(0, 1<<31-1-65535) != nil {
			return
		}
		// A PING once the client's write is blocked: its reader needs the
		// write lock to acknowledge it.
		time.Sleep(300 * time.Millisecond)
		if c.fr.WritePing(false, [8]byte{}) == nil {
			<-stop
		}
	})
	t.Cleanup(func() { close(stop) }) // before the server's cleanup, which waits for the handler
	start := time.Now()
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: url, Body: make([]byte, 64<<20)}},
		Protocol: transport.HTTP2, Requests: 1, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); res.Errors != 1 || took > 5*time.Second {
		t.Errorf("%d completed, %d failed %v after %v; want 1 failed by the 1 s timeout", res.Requests, res.Errors, res.ErrorCounts, took)
	}
}

// TestHTTP2BodiesToRealServer posts bodies of several sizes through the
// fast client to the embedded server (x/net's HTTP/2 server, with its own
// windows), which echoes the size of the body it received.
func TestHTTP2BodiesToRealServer(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, size := range []int{0, 1, 16 << 10, 16<<10 + 1, 200 << 10, 3 << 20} {
		before := srv.Stats().Requests
		res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPSURL + "/bytes/1", Method: "POST", Body: bytes.Repeat([]byte("x"), size)}},
			Protocol: transport.HTTP2, Conns: 2, Streams: 3, Requests: 12, TLS: clientTLS(t, srv.CA.CertPEM)})
		if got := srv.Stats().Requests - before; res.Requests != 12 || got != 12 || res.Status[200] != 12 {
			t.Errorf("%d-byte bodies: %d completed %v, server counted %d; want 12 answered 200", size, res.Requests, res.Status, got)
		}
	}
}

// streamLimitServer is a raw HTTP/2 server that allows no concurrent
// stream (SETTINGS_MAX_CONCURRENT_STREAMS 0) and, when raiseAfter is set,
// raises the limit to 5 that long after the connection opened. It refuses
// the streams it does not allow with REFUSED_STREAM and counts those that
// the client opened after acknowledging the limit of 0: forbidden streams.
type streamLimitServer struct {
	raiseAfter time.Duration
	forbidden  atomic.Int64
}

func (s *streamLimitServer) serve(c *rawH2) {
	frames := make(chan http2.Frame)
	go func() {
		defer close(frames)
		for {
			f, err := c.fr.ReadFrame()
			if err != nil {
				return
			}
			frames <- copyFrame(f)
		}
	}()
	var raise <-chan time.Time
	if s.raiseAfter > 0 {
		raise = time.After(s.raiseAfter)
	}
	limit, acked := 0, false
	for {
		select {
		case f, ok := <-frames:
			if !ok || !s.frame(c, f, limit, &acked) {
				return
			}
		case <-raise:
			limit = 5
			if c.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 5}) != nil {
				return
			}
		}
	}
}

// copyFrame keeps what the server needs of a frame past the next read.
func copyFrame(f http2.Frame) http2.Frame {
	if s, ok := f.(*http2.SettingsFrame); ok && !s.IsAck() {
		return &http2.PingFrame{} // stands for "the client's SETTINGS": acked below
	}
	return f
}

func (s *streamLimitServer) frame(c *rawH2, f http2.Frame, limit int, acked *bool) bool {
	switch f := f.(type) {
	case *http2.PingFrame:
		return c.fr.WriteSettingsAck() == nil
	case *http2.SettingsFrame:
		*acked = *acked || f.IsAck()
	case *http2.HeadersFrame:
		if limit == 0 {
			if *acked {
				s.forbidden.Add(1)
			}
			return c.fr.WriteRSTStream(f.StreamID, http2.ErrCodeRefusedStream) == nil
		}
		block := hpackBlock(hpack.HeaderField{Name: ":status", Value: "200"})
		return c.writeBlock(f.StreamID, block, true) == nil
	}
	return true
}

// TestHTTP2NoStreamsAllowed runs against a server that allows no
// concurrent stream. The fast client clamped the limit to 1 and opened
// streams regardless (145,568 in 3 s); it must open none while the limit
// is 0 and wait for the server to raise it, within the timeout and the
// run's time, failing the requests with a clear error when it does not;
// the Load line says what the server allowed.
func TestHTTP2NoStreamsAllowed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		raiseAfter time.Duration
		cfg        Config
		completed  int64
		within     time.Duration
	}{
		{"raised later", 300 * time.Millisecond, Config{Conns: 1, Streams: 3, Requests: 20}, 20, 5 * time.Second},
		{"never, -n", 0, Config{Conns: 2, Requests: 6, Timeout: time.Second}, 0, 4 * time.Second},
		{"never, -n1", 0, Config{Conns: 1, Requests: 3, Timeout: time.Second}, 0, 4 * time.Second},
		{"never, -d", 0, Config{Conns: 2, Duration: time.Second}, 0, 3 * time.Second},
	}
	for _, tt := range tests {
		s := &streamLimitServer{raiseAfter: tt.raiseAfter}
		url, _ := serveRawH2(t, []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 0}}, s.serve)
		cfg := tt.cfg
		cfg.Targets, cfg.Protocol = []Target{{URL: url}}, transport.HTTP2
		start := time.Now()
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if res.Requests != tt.completed || tt.completed == 0 && (res.Errors == 0 || !errorsAre(res, errNoStreams)) {
			t.Errorf("%s: %d completed, %d failed %v; want %d completed and the others failed with %q",
				tt.name, res.Requests, res.Errors, res.ErrorCounts, tt.completed, errNoStreams)
		}
		if cfg.Requests > 0 && res.Requests+res.Errors != cfg.Requests {
			t.Errorf("%s: %d completed and %d failed; want %d in all", tt.name, res.Requests, res.Errors, cfg.Requests)
		}
		if n := s.forbidden.Load(); n != 0 || took > tt.within {
			t.Errorf("%s: %d streams opened while the server allowed none, run of %v; want none, within %v", tt.name, n, took, tt.within)
		}
		if res.ServerStreams == nil || *res.ServerStreams != 0 {
			t.Errorf("%s: ServerStreams %v; want 0", tt.name, res.ServerStreams)
		}
	}
}

// errorsAre reports whether every error of a run is err.
func errorsAre(res *Result, err error) bool {
	for msg, e := range res.ErrorSamples {
		if !errors.Is(e, err) && !strings.Contains(msg, err.Error()) {
			return false
		}
	}
	return true
}
