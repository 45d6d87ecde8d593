package experiment

import (
	"encoding/binary"
	"net"
	"sync"
)

// recordWatch is a connection that reads the TLS record headers in what
// the server sends and counts the application-data records by length:
// nginx's ssl_buffer_size sets how much of a response goes into one record
// (16 KiB by default), which a client sees in nothing else. It reads only
// the 5-byte headers and skips each record by the length the header gives,
// whatever the bytes are, so it needs no memory beyond its counts, which
// are bounded by the distinct lengths a record can have (2^16).
type recordWatch struct {
	net.Conn

	mu     sync.Mutex
	hdr    [5]byte
	filled int            // bytes of hdr read so far
	left   int            // bytes of the current record still to come
	count  map[uint16]int // application-data records by length
}

// recordAppData is the TLS content type of application data; in TLS 1.3
// every encrypted record, handshake messages included, carries it.
const recordAppData = 23

func newRecordWatch(c net.Conn) *recordWatch {
	return &recordWatch{Conn: c, count: map[uint16]int{}}
}

func (w *recordWatch) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.mu.Lock()
	w.feed(p[:n])
	w.mu.Unlock()
	return n, err
}

// feed follows the record boundaries through b.
func (w *recordWatch) feed(b []byte) {
	for len(b) > 0 {
		if w.left > 0 {
			k := min(w.left, len(b))
			w.left -= k
			b = b[k:]
			continue
		}
		k := copy(w.hdr[w.filled:], b)
		w.filled += k
		b = b[k:]
		if w.filled < len(w.hdr) {
			return
		}
		w.filled = 0
		length := binary.BigEndian.Uint16(w.hdr[3:5])
		w.left = int(length)
		if w.hdr[0] == recordAppData {
			w.count[length]++
		}
	}
}

// commonSize is the length of the most frequent application-data record
// (the longer of two equally frequent), or 0 where none came.
func (w *recordWatch) commonSize() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	best, bestN := 0, 0
	for length, n := range w.count {
		if n > bestN || n == bestN && int(length) > best {
			best, bestN = int(length), n
		}
	}
	return best
}
