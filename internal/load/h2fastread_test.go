package load

import (
	"bytes"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// TestHeadersContinuation feeds the fast HTTP/2 client's reader a
// response whose HEADERS frame has END_STREAM but not END_HEADERS: the
// stream must end only with the CONTINUATION that completes the block,
// and with its status.
func TestHeadersContinuation(t *testing.T) {
	block := encodeBlock(hpack.HeaderField{Name: ":status", Value: "404"},
		hpack.HeaderField{Name: "x-long", Value: "0123456789abcdef"})
	tests := []struct {
		name       string
		fragments  [][]byte
		endStream  bool
		wantStatus int
	}{
		{"one frame", [][]byte{block}, true, 404},
		{"two continuations", [][]byte{block[:1], block[1:4], block[4:]}, true, 404},
		{"headers then data", [][]byte{block[:2], block[2:]}, false, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var wire bytes.Buffer
			fr := http2.NewFramer(&wire, nil)
			last := len(tt.fragments) - 1
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: tt.fragments[0],
				EndStream: tt.endStream, EndHeaders: last == 0})
			for i, frag := range tt.fragments[1:] {
				_ = fr.WriteContinuation(1, i+1 == last, frag)
			}
			if !tt.endStream {
				_ = fr.WriteData(1, true, []byte("body"))
			}
			frames := 1 + last + map[bool]int{true: 0, false: 1}[tt.endStream]

			events := make(chan *batch, 4)
			c := &h2Conn{run: &runner{start: time.Now(), cfg: Config{MaxHeaderBytes: 1 << 20}}, streams: map[uint32]*h2Stream{}, nextID: 1,
				done: make(chan struct{}, 1), rec: newRecorder(events), refreshed: time.Now().Add(time.Hour)}
			if _, ok := c.register(h2Pending{t: -1}, 0); !ok {
				t.Fatal("register: refused")
			}
			rd := http2.NewFramer(nil, &wire)
			for i := range frames {
				f, err := rd.ReadFrame()
				if err != nil {
					t.Fatalf("ReadFrame %d: %v", i, err)
				}
				if i < frames-1 && len(c.done) != 0 {
					t.Fatalf("stream ended after frame %d (%v); want after frame %d", i, f.Header().Type, frames-1)
				}
				if err := c.handle(f); err != nil {
					t.Fatalf("handle(%v): %v", f.Header().Type, err)
				}
			}
			if len(c.done) != 1 {
				t.Fatalf("stream did not end after %d frames", frames)
			}
			c.rec.flush()
			b := <-events
			if len(b.events) != 1 || b.events[0].err != nil || b.events[0].status != tt.wantStatus {
				t.Errorf("recorded %+v; want one event with status %d", b.events, tt.wantStatus)
			}
		})
	}
}
