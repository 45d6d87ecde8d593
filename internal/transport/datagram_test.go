package transport

import (
	"bytes"
	"testing"

	"github.com/quic-go/quic-go/quicvarint"
)

// longPacket builds a QUIC v1 long header packet of type typ with an
// 8-byte destination and a 4-byte source connection ID, a token for
// Initial packets, and payload bytes of packet number and frames.
func longPacket(typ byte, token []byte, payload int) []byte {
	p := []byte{0xc0 | typ<<4, 0, 0, 0, 1, 8, 1, 2, 3, 4, 5, 6, 7, 8, 4, 9, 9, 9, 9}
	if typ == typeInitial {
		p = quicvarint.Append(p, uint64(len(token)))
		p = append(p, token...)
	}
	p = quicvarint.Append(p, uint64(payload))
	return append(p, bytes.Repeat([]byte{0xaa}, payload)...)
}

func TestSplitDatagram(t *testing.T) {
	initial := longPacket(typeInitial, []byte("token"), 1100)
	zeroRTT := longPacket(typeZeroRTT, nil, 80)
	handshake := longPacket(typeHandshake, nil, 300)
	short := append([]byte{0x40}, bytes.Repeat([]byte{1}, 60)...)
	retry := append([]byte{0xf0, 0, 0, 0, 1, 0, 0}, bytes.Repeat([]byte{2}, 30)...)
	cat := func(ps ...[]byte) []byte { return bytes.Join(ps, nil) }
	tests := []struct {
		name          string
		p             []byte
		wantHS, wantA int
	}{
		{"initial", initial, len(initial), 0},
		{"initial + 0-RTT", cat(initial, zeroRTT), len(initial), len(zeroRTT)},
		{"handshake + 1-RTT", cat(handshake, short), len(handshake), len(short)},
		{"1-RTT", short, 0, len(short)},
		{"retry", retry, len(retry), 0},
		{"truncated initial", initial[:40], 40, 0},
		{"truncated 0-RTT after initial", cat(initial, zeroRTT[:10]), len(initial), 10},
		{"empty", nil, 0, 0},
	}
	for _, tt := range tests {
		hs, app := SplitDatagram(tt.p)
		if hs != tt.wantHS || app != tt.wantA {
			t.Errorf("SplitDatagram(%s) = %d, %d; want %d, %d", tt.name, hs, app, tt.wantHS, tt.wantA)
		}
	}
}

func FuzzSplitDatagram(f *testing.F) {
	f.Add(longPacket(typeInitial, []byte("t"), 50))
	f.Add(append(longPacket(typeHandshake, nil, 20), 0x40, 1, 2))
	f.Add([]byte{0xd0, 0, 0, 0, 1, 20})
	f.Add([]byte{0xc0, 0, 0, 0, 1, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, p []byte) {
		hs, app := SplitDatagram(p)
		if hs < 0 || app < 0 || hs+app != len(p) {
			t.Errorf("SplitDatagram(%x) = %d, %d; want non-negative parts adding up to %d", p, hs, app, len(p))
		}
	})
}
