package tlsscan

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"

	"golang.org/x/crypto/cryptobyte"
)

// Record content types.
const (
	recordChangeCipherSpec = 20
	recordAlert            = 21
	recordHandshake        = 22
	recordApplicationData  = 23
)

// Handshake message types.
const (
	msgServerHello       = 2
	msgNewSessionTicket  = 4
	msgCertificate       = 11
	msgServerKeyExchange = 12
	msgServerHelloDone   = 14
	msgCertificateVerify = 15
	msgClientKeyExchange = 16
	msgFinished          = 20
)

// maxRecord bounds a record's length: 2^14 plus the largest expansion
// RFC 8446 and RFC 5246 allow.
const maxRecord = 1<<14 + 2048

// helloRetryRandom is the fixed random of a HelloRetryRequest (RFC 8446, 4.1.3).
var helloRetryRandom = []byte{
	0xCF, 0x21, 0xAD, 0x74, 0xE5, 0x9A, 0x61, 0x11, 0xBE, 0x1D, 0x8C, 0x02, 0x1E, 0x65, 0xB8, 0x91,
	0xC2, 0xA2, 0x11, 0x16, 0x7A, 0xBB, 0x8C, 0x5E, 0x07, 0x9E, 0x09, 0xE2, 0xC8, 0xA8, 0x33, 0x9C,
}

// record is one TLS record as read from the wire.
type record struct {
	typ     uint8
	version uint16
	payload []byte
}

// readRecord reads one record; it refuses lengths no TLS peer may send
// and content types other than TLS's own up to application data.
func readRecord(r io.Reader) (record, error) { return readRecordUpTo(r, recordApplicationData) }

// readRecordUpTo reads one record whose content type is at most last.
func readRecordUpTo(r io.Reader, last byte) (record, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return record{}, err
	}
	n := int(hdr[3])<<8 | int(hdr[4])
	if n > maxRecord {
		return record{}, fmt.Errorf("reading TLS record: length %d over the limit", n)
	}
	if hdr[0] < recordChangeCipherSpec || hdr[0] > last {
		return record{}, fmt.Errorf("reading TLS record: content type %d is not TLS", hdr[0])
	}
	rec := record{typ: hdr[0], version: uint16(hdr[1])<<8 | uint16(hdr[2]), payload: make([]byte, n)}
	if _, err := io.ReadFull(r, rec.payload); err != nil {
		return record{}, fmt.Errorf("reading TLS record: %w", err)
	}
	return rec, nil
}

// Alert is a TLS alert the server sent.
type Alert struct {
	Level, Description uint8
}

func (a Alert) Error() string { return fmt.Sprintf("TLS alert %d", a.Description) }

// serverHello holds the fields of a ServerHello or HelloRetryRequest.
type serverHello struct {
	version   uint16 // negotiated: supported_versions if present, else legacy_version
	sessionID []byte
	suite     uint16
	retry     bool        // a HelloRetryRequest
	group     tls.CurveID // from key_share (TLS 1.3)
}

// parseServerHello parses the body of a server_hello handshake message.
func parseServerHello(body []byte) (serverHello, error) {
	s := cryptobyte.String(body)
	var h serverHello
	var random []byte
	var comp uint8
	if !s.ReadUint16(&h.version) || !s.ReadBytes(&random, 32) ||
		!s.ReadUint8LengthPrefixed((*cryptobyte.String)(&h.sessionID)) ||
		!s.ReadUint16(&h.suite) || !s.ReadUint8(&comp) {
		return h, errors.New("parsing ServerHello: truncated")
	}
	h.retry = bytes.Equal(random, helloRetryRandom)
	if s.Empty() {
		return h, nil
	}
	var exts cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		return h, errors.New("parsing ServerHello: bad extensions")
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return h, errors.New("parsing ServerHello: bad extension")
		}
		if err := h.readExtension(typ, data); err != nil {
			return h, err
		}
	}
	return h, nil
}

func (h *serverHello) readExtension(typ uint16, data cryptobyte.String) error {
	ok := true
	switch typ {
	case extSupportedVersion:
		ok = data.ReadUint16(&h.version)
	case extKeyShare:
		var g uint16
		ok = data.ReadUint16(&g) // a ServerHello adds the key, a HelloRetryRequest does not
		h.group = tls.CurveID(g)
	}
	if !ok {
		return fmt.Errorf("parsing ServerHello: bad extension %d", typ)
	}
	return nil
}

// keyExchange is what a TLS 1.2 ServerKeyExchange says about the group.
type keyExchange struct {
	group  tls.CurveID // named curve of ECDHE
	dhBits int         // size of the DHE prime
}

// parseServerKeyExchange reads the group out of a ServerKeyExchange body
// for an ECDHE or a DHE suite (RFC 8422, 5.4; RFC 5246, 7.4.3).
func parseServerKeyExchange(body []byte, suite uint16) (keyExchange, error) {
	s := cryptobyte.String(body)
	name := SuiteName(suite)
	switch {
	case bytes.Contains([]byte(name), []byte("_ECDHE_")):
		var curveType uint8
		var g uint16
		if !s.ReadUint8(&curveType) || curveType != 3 || !s.ReadUint16(&g) {
			return keyExchange{}, errors.New("parsing ServerKeyExchange: not a named curve")
		}
		return keyExchange{group: tls.CurveID(g)}, nil
	case bytes.Contains([]byte(name), []byte("_DHE_")), bytes.Contains([]byte(name), []byte("_DH_anon_")):
		var p cryptobyte.String
		if !s.ReadUint16LengthPrefixed(&p) {
			return keyExchange{}, errors.New("parsing ServerKeyExchange: truncated DH prime")
		}
		for len(p) > 0 && p[0] == 0 {
			p = p[1:]
		}
		return keyExchange{dhBits: len(p) * 8}, nil
	}
	return keyExchange{}, nil
}

// reply is what the server answered to one ClientHello.
type reply struct {
	alert *Alert
	hello *serverHello
	kex   *keyExchange
	ccs   bool // a ChangeCipherSpec followed (an abbreviated TLS 1.2 handshake)
}

// handshakeReader splits handshake records into messages.
type handshakeReader struct {
	buf []byte
}

// next returns the next complete message, or ok=false if more bytes are needed.
func (h *handshakeReader) next() (typ uint8, body []byte, ok bool) {
	if len(h.buf) < 4 {
		return 0, nil, false
	}
	n := int(h.buf[1])<<16 | int(h.buf[2])<<8 | int(h.buf[3])
	if len(h.buf) < 4+n {
		return 0, nil, false
	}
	typ, body = h.buf[0], h.buf[4:4+n]
	h.buf = h.buf[4+n:]
	return typ, body, true
}

// readReply reads the server's answer up to the ServerHello, or, for
// TLS 1.2 and older with wantKex, up to the ServerKeyExchange. It reads at
// most 64 records and stops at the first alert.
func readReply(r io.Reader, wantKex bool) (reply, error) {
	var out reply
	var hs handshakeReader
	for range 64 {
		rec, err := readRecord(r)
		if err != nil {
			return out, err
		}
		switch rec.typ {
		case recordAlert:
			if len(rec.payload) < 2 {
				return out, errors.New("reading TLS alert: truncated")
			}
			out.alert = &Alert{Level: rec.payload[0], Description: rec.payload[1]}
			return out, nil
		case recordChangeCipherSpec:
			out.ccs = true
			return out, nil
		case recordHandshake:
			hs.buf = append(hs.buf, rec.payload...)
		default:
			return out, fmt.Errorf("reading ServerHello: unexpected record type %d", rec.typ)
		}
		done, err := out.consume(&hs, wantKex)
		if err != nil || done {
			return out, err
		}
	}
	return out, errors.New("reading ServerHello: too many records")
}

// consume parses the complete messages buffered so far.
func (out *reply) consume(hs *handshakeReader, wantKex bool) (done bool, err error) {
	for {
		typ, body, ok := hs.next()
		if !ok {
			return false, nil
		}
		if out.hello == nil {
			if typ != msgServerHello {
				return true, fmt.Errorf("reading ServerHello: got handshake message %d first", typ)
			}
			h, err := parseServerHello(body)
			if err != nil {
				return true, err
			}
			out.hello = &h
			if h.version >= VersionTLS13 || h.retry || !wantKex {
				return true, nil
			}
			continue
		}
		switch typ {
		case msgServerKeyExchange:
			k, err := parseServerKeyExchange(body, out.hello.suite)
			out.kex = &k
			return true, err
		case msgServerHelloDone:
			return true, nil
		}
	}
}
