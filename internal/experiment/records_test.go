package experiment

import (
	"bytes"
	"maps"
	"net"
	"slices"
	"testing"
)

// records returns TLS records of the given content type and body lengths,
// back to back.
func records(typ byte, lengths ...int) []byte {
	var b bytes.Buffer
	for _, n := range lengths {
		b.Write([]byte{typ, 3, 3, byte(n >> 8), byte(n)})
		b.Write(bytes.Repeat([]byte{0xAA}, n))
	}
	return b.Bytes()
}

// TestRecordWatch checks the record lengths counted from a server's
// stream cut at every byte, whatever the cuts.
func TestRecordWatch(t *testing.T) {
	stream := slices.Concat(
		records(22, 90, 700),             // TLS 1.2 handshake: not counted
		records(23, 16401, 16401, 16401), // ssl_buffer_size 16k under TLS 1.3
		records(23, 250, 250),            // two session tickets
		records(23, 3000),
	)
	for _, chunk := range []int{1, 3, 5, 7, 1000, len(stream)} {
		w := newRecordWatch(nil)
		for b := stream; len(b) > 0; {
			k := min(chunk, len(b))
			w.feed(b[:k])
			b = b[k:]
		}
		want := map[uint16]int{16401: 3, 250: 2, 3000: 1}
		if !maps.Equal(w.count, want) || w.commonSize() != 16401 {
			t.Errorf("chunks of %d: counts %v, common %d; want %v and 16401", chunk, w.count, w.commonSize(), want)
		}
	}
	if got := newRecordWatch(nil).commonSize(); got != 0 {
		t.Errorf("commonSize of no records = %d; want 0", got)
	}
}

// TestRecordWatchRead checks that the records are counted as the TLS
// layer reads through the connection.
func TestRecordWatchRead(t *testing.T) {
	server, client := net.Pipe()
	go func() {
		server.Write(records(23, 1477, 1477, 300))
		server.Close()
	}()
	w := newRecordWatch(client)
	buf := make([]byte, 100)
	for {
		if _, err := w.Read(buf); err != nil {
			break
		}
	}
	if got := w.commonSize(); got != 1477 {
		t.Errorf("commonSize after reading = %d; want 1477", got)
	}
}

// FuzzRecordWatch feeds any bytes in any two pieces: the counts are those
// of the whole stream fed at once, and never more records than the
// stream has headers' room for.
func FuzzRecordWatch(f *testing.F) {
	f.Add(records(23, 1, 2, 3), 4)
	f.Add(records(22, 0)[:3], 1)
	f.Add([]byte{23, 3, 3, 0xff, 0xff, 1, 2}, 6)
	f.Fuzz(func(t *testing.T, stream []byte, cut int) {
		whole := newRecordWatch(nil)
		whole.feed(stream)
		cut = max(0, min(cut, len(stream)))
		split := newRecordWatch(nil)
		split.feed(stream[:cut])
		split.feed(stream[cut:])
		if !maps.Equal(whole.count, split.count) {
			t.Errorf("cut at %d: counts %v; whole %v", cut, split.count, whole.count)
		}
		n := 0
		for _, c := range whole.count {
			n += c
		}
		if n > len(stream)/5 {
			t.Errorf("%d records counted in %d bytes", n, len(stream))
		}
	})
}
