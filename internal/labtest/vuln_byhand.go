package labtest

import (
	"crypto/rand"
	"io"
	"maps"
	"net"
	"slices"

	"golang.org/x/crypto/cryptobyte"
)

// The VulnServer's handshakes by hand: a first flight (ServerHello,
// Certificate, ServerHelloDone) shaped by the flaw, then what the flawed
// server does with the client's next records.

// rsaSuites are the RSA key-exchange suites a first flight by hand picks
// from (no ServerKeyExchange is needed): CBC with SHA-1 in every version
// (0x002f, 0x0035, 0x000a), and from TLS 1.2 the SHA-256 and GCM ones
// (tls12OnlyRSA).
var rsaSuites = []uint16{0x002f, 0x0035, 0x000a, 0x003c, 0x009c, 0x009d}

// tls12OnlyRSA are the suites of rsaSuites that TLS 1.2 defines.
var tls12OnlyRSA = []uint16{0x003c, 0x009c, 0x009d}

// pickSuite returns the first suite the client offers (the client's
// order, as OpenSSL's default) among the RSA suites of version; false
// when there is none: the server has those suites alone, as a real one
// has a list, not any suite offered.
func pickSuite(offered []uint16, version uint16) (uint16, bool) {
	for _, s := range offered {
		if slices.Contains(rsaSuites, s) && (version >= 0x0303 || !slices.Contains(tls12OnlyRSA, s)) {
			return s, true
		}
	}
	return 0, false
}

func (s *VulnServer) serveByHand(c net.Conn, h clientHello) {
	version := min(h.version, 0x0303)
	// Apart from its flaw, the server is current: no SSLv3, and a
	// fallback below its newest version is refused (RFC 7507).
	newest := uint16(s.full.MaxVersion)
	if newest == 0 {
		newest = 0x0304
	}
	switch {
	case version < 0x0301 && s.vuln != SSLv3:
		_, _ = c.Write(record(21, 0x0301, []byte{2, 70})) // protocol_version
		return
	case slices.Contains(h.suites, 0x5600) && version < newest:
		_, _ = c.Write(record(21, version, []byte{2, 86})) // inappropriate_fallback
		return
	}
	suite, ok := pickSuite(h.suites, version)
	if !ok {
		_, _ = c.Write(record(21, version, []byte{2, 40})) // handshake_failure
		return
	}
	sid := make([]byte, 32)
	_, _ = rand.Read(sid)
	comp := uint8(0)
	exts := map[uint16][]byte{0xff01: {0}} // renegotiation_info, empty
	switch s.vuln {
	case Heartbleed:
		exts[15] = []byte{1}
	case ROBOT:
		s.serveBleichenbacher(c, h, suite)
		return
	case ClientRenegotiation:
		s.serveRenegotiating(c, h, true)
		return
	case InsecureRenegotiation:
		if slices.Contains(h.suites, suiteRSAAES128GCM) {
			s.serveRenegotiating(c, h, false)
			return
		}
		delete(exts, 0xff01)
	case Compression:
		comp = 1
	case Ticketbleed:
		// The flaw: 32 bytes copied from where the client's shorter ID is.
		// sid is random: what follows the client's ID differs each time,
		// as memory does.
		copy(sid, h.sessionID)
		finished := make([]byte, 40)
		_, _ = rand.Read(finished)
		out := record(22, version, handshakeMsg(2, serverHelloBody(version, sid, suite, 0, nil)))
		out = append(out, record(20, version, []byte{1})...)
		_, _ = c.Write(append(out, record(22, version, finished)...))
		_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<16))
		return
	}
	var msgs []byte
	msgs = append(msgs, handshakeMsg(2, serverHelloBody(version, sid, suite, comp, exts))...)
	msgs = append(msgs, handshakeMsg(11, certificateBody(s.cert.Certificate))...)
	msgs = append(msgs, handshakeMsg(14, nil)...)
	if _, err := c.Write(record(22, version, msgs)); err != nil {
		return
	}
	switch s.vuln {
	case Heartbleed:
		serveHeartbeats(c, version)
	case CCSInjection:
		serveEarlyCCS(c, version)
	default:
		// The handshake goes no further: the client's next record ends it.
		if _, err := readRecord(c); err == nil {
			_, _ = c.Write(record(21, version, []byte{2, 40})) // handshake_failure
		}
	}
}

// serveHeartbeats answers each heartbeat request with the payload length
// it claims, filled from "memory" past what it carried: Heartbleed.
func serveHeartbeats(c net.Conn, version uint16) {
	for range 16 {
		rec, err := readRecord(c)
		if err != nil || rec.typ != 24 || len(rec.payload) < 3 || rec.payload[0] != 1 {
			return
		}
		claimed := min(int(rec.payload[1])<<8|int(rec.payload[2]), 1<<14-3-16)
		payload := append([]byte{2, byte(claimed >> 8), byte(claimed)}, rec.payload[3:]...)
		payload = append(payload, fill(3+claimed-len(payload))...)
		padding := make([]byte, 16)
		_, _ = rand.Read(padding)
		if _, err := c.Write(record(24, version, append(payload[:3+claimed], padding...))); err != nil {
			return
		}
	}
}

// serveEarlyCCS takes a ChangeCipherSpec before the key exchange and
// switches to keys it cannot have: the next record fails to decrypt.
func serveEarlyCCS(c net.Conn, version uint16) {
	rec, err := readRecord(c)
	if err != nil {
		return
	}
	if rec.typ != 20 {
		_, _ = c.Write(record(21, version, []byte{2, 40}))
		return
	}
	if _, err := readRecord(c); err == nil {
		_, _ = c.Write(record(21, version, []byte{2, 21})) // decryption_failed
	}
}

// serveSSLv2 answers an SSLv2 CLIENT-HELLO with a SERVER-HELLO that
// offers the ciphers of the client's list that SSLv2 defines.
func (s *VulnServer) serveSSLv2(c net.Conn, first byte) {
	var second [1]byte
	if _, err := io.ReadFull(c, second[:]); err != nil {
		return
	}
	body := make([]byte, int(first&0x7f)<<8|int(second[0]))
	if _, err := io.ReadFull(c, body); err != nil || len(body) < 9 || body[0] != 1 {
		return
	}
	specsLen := int(body[3])<<8 | int(body[4])
	var specs []byte
	for i := 9; i+3 <= min(9+specsLen, len(body)); i += 3 {
		if body[i+1] == 0 && body[i] >= 1 && body[i] <= 7 {
			specs = append(specs, body[i:i+3]...)
		}
	}
	cert := s.cert.Certificate[0]
	connID := make([]byte, 16)
	_, _ = rand.Read(connID)
	msg := []byte{4, 0, 1, 0, 2, byte(len(cert) >> 8), byte(len(cert)), byte(len(specs) >> 8), byte(len(specs)), 0, byte(len(connID))}
	msg = append(append(append(msg, cert...), specs...), connID...)
	_, _ = c.Write(append([]byte{0x80 | byte(len(msg)>>8), byte(len(msg))}, msg...))
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<16))
}

func serverHelloBody(version uint16, sid []byte, suite uint16, comp uint8, exts map[uint16][]byte) []byte {
	random := make([]byte, 32)
	_, _ = rand.Read(random)
	return serverHelloBodyWith(version, random, sid, suite, comp, exts)
}

func serverHelloBodyRandom(version uint16, random, sid []byte, suite uint16, exts map[uint16][]byte) []byte {
	return serverHelloBodyWith(version, random, sid, suite, 0, exts)
}

func serverHelloBodyWith(version uint16, random, sid []byte, suite uint16, comp uint8, exts map[uint16][]byte) []byte {
	var b cryptobyte.Builder
	b.AddUint16(version)
	b.AddBytes(random)
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(sid) })
	b.AddUint16(suite)
	b.AddUint8(comp)
	if len(exts) > 0 {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, typ := range slices.Sorted(maps.Keys(exts)) {
				b.AddUint16(typ)
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(exts[typ]) })
			}
		})
	}
	return b.BytesOrPanic()
}

func certificateBody(chain [][]byte) []byte {
	var b cryptobyte.Builder
	b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
		for _, der := range chain {
			b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(der) })
		}
	})
	return b.BytesOrPanic()
}

func handshakeMsg(typ uint8, body []byte) []byte {
	return append([]byte{typ, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
}

func record(typ uint8, version uint16, payload []byte) []byte {
	return append([]byte{typ, byte(version >> 8), byte(version), byte(len(payload) >> 8), byte(len(payload))}, payload...)
}

// tlsRecord is one record read by a VulnServer.
type tlsRecord struct {
	typ     uint8
	payload []byte
}

func readRecord(c net.Conn) (tlsRecord, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return tlsRecord{}, err
	}
	p := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	_, err := io.ReadFull(c, p)
	return tlsRecord{typ: hdr[0], payload: p}, err
}
