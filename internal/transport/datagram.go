package transport

import (
	"github.com/quic-go/quic-go/quicvarint"
)

// QUIC version 1 long header packet types (RFC 9000, section 17.2).
const (
	typeInitial   = 0x0
	typeZeroRTT   = 0x1
	typeHandshake = 0x2
)

// SplitDatagram splits a QUIC datagram's bytes into handshake bytes
// (Initial and Handshake packets) and application bytes (0-RTT and 1-RTT
// packets). A datagram can carry several coalesced packets: long header
// packets state their length, a short header (1-RTT) packet runs to the
// end. Bytes that do not parse as a long header packet count with the
// class of the packet they start, so the two always add up to len(p).
func SplitDatagram(p []byte) (handshake, app int) {
	for len(p) > 0 {
		if p[0]&0x80 == 0 { // short header: 1-RTT, to the end
			return handshake, app + len(p)
		}
		typ := p[0] >> 4 & 0x3
		n := longPacketLen(p)
		if n <= 0 || n > len(p) || typ > typeHandshake {
			n = len(p) // Retry, Version Negotiation or unparsable: the rest
		}
		if typ == typeZeroRTT {
			app += n
		} else {
			handshake += n
		}
		p = p[n:]
	}
	return handshake, app
}

// longPacketLen returns the length of the long header packet at the
// start of p, or 0 if it cannot be read.
func longPacketLen(p []byte) int {
	i := 5        // first byte and version
	for range 2 { // destination and source connection IDs
		if i >= len(p) {
			return 0
		}
		i += 1 + int(p[i])
	}
	if i > len(p) {
		return 0
	}
	if p[0]>>4&0x3 == typeInitial {
		token, n, err := quicvarint.Parse(p[i:])
		if err != nil || token > uint64(len(p)) {
			return 0
		}
		i += n + int(token)
		if i > len(p) {
			return 0
		}
	}
	length, n, err := quicvarint.Parse(p[i:])
	if err != nil || length > uint64(len(p)) {
		return 0
	}
	return i + n + int(length)
}
