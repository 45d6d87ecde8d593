package tlsscan

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net"
	"strings"
	"sync"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/cryptobyte"
)

// maxRecorded bounds the bytes a recordingConn keeps.
const maxRecorded = 4 << 20

// recordingConn keeps a copy of the bytes the server sent, so that the
// records under crypto/tls can be read afterwards: their sizes, the TLS
// 1.2 ServerHello and NewSessionTicket, and, with the key log, the TLS 1.3
// NewSessionTicket. Only the dials that read them record. The copy is a
// prefix of the stream: at the first read that would pass limit bytes,
// recording stops for good, so that what is kept has no gaps.
type recordingConn struct {
	net.Conn
	limit int

	mu      sync.Mutex
	read    bytes.Buffer
	stopped bool
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read.Len()+n > c.limit {
		c.stopped = true
	}
	if !c.stopped {
		c.read.Write(p[:n])
	}
	return n, err
}

// bytesRead returns a copy of what was recorded; nil when the connection
// was not recorded.
func (c *recordingConn) bytesRead() []byte {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.read.Bytes())
}

// keyLog collects the NSS key log lines crypto/tls writes.
type keyLog struct {
	mu    sync.Mutex
	lines []string
}

func (k *keyLog) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lines = append(k.lines, strings.Split(strings.TrimSpace(string(p)), "\n")...)
	return len(p), nil
}

// secret returns the secret of the given label.
func (k *keyLog) secret(label string) ([]byte, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, l := range k.lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == label {
			b, err := hex.DecodeString(f[2])
			return b, err == nil
		}
	}
	return nil, false
}

// ServerRecords is what the server's records after the handshake show.
type ServerRecords struct {
	// FirstFlight is the bytes of the server's first flight as on the
	// wire, record headers included: from the ServerHello to the end of
	// the record with the server's Finished (TLS 1.3) or ServerHelloDone
	// (TLS 1.2 and older). 0 when the capture did not hold it.
	FirstFlight int `json:"first_flight_bytes"`
	// Certificate is the size of the Certificate message as sent, its
	// handshake header included.
	Certificate int `json:"certificate_bytes"`
	// CertificateVerify is the size of the TLS 1.3 CertificateVerify
	// message, the signature a resumed handshake does without.
	CertificateVerify int `json:"certificate_verify_bytes,omitempty"`
	// FirstDataRecord is the length of the first record carrying
	// response bytes, as on the wire (ciphertext, without the header).
	FirstDataRecord int `json:"first_data_record_bytes"`
	// DataRecords counts the records carrying the response, DataWireBytes
	// their bytes on the wire (headers included) and DataPlainBytes the
	// response bytes they carried (TLS 1.3 only, where they are
	// decrypted): the difference is what the record framing cost.
	DataRecords    int   `json:"data_records"`
	DataWireBytes  int64 `json:"data_wire_bytes"`
	DataPlainBytes int64 `json:"data_plain_bytes,omitempty"`
	// TicketLifetime is the lifetime (TLS 1.3) or lifetime hint (TLS 1.2)
	// of the last session ticket, in seconds; Tickets counts tickets.
	TicketLifetime uint32 `json:"ticket_lifetime_s"`
	Tickets        int    `json:"tickets"`
	// MaxEarlyData is the 0-RTT allowance of the TLS 1.3 tickets (0: none).
	MaxEarlyData uint32 `json:"max_early_data"`
}

// readServerRecords walks the records a server sent on one connection.
// For TLS 1.3 it decrypts them with the secrets from the key log.
func readServerRecords(raw []byte, cs tls.ConnectionState, kl *keyLog) (ServerRecords, error) {
	var out ServerRecords
	r := bytes.NewReader(raw)
	var dec *decrypter
	if cs.Version == tls.VersionTLS13 {
		var err error
		if dec, err = newDecrypter(cs.CipherSuite, kl, "SERVER_HANDSHAKE_TRAFFIC_SECRET"); err != nil {
			return out, err
		}
	}
	var hs handshakeReader
	for r.Len() > 0 {
		rec, err := readRecord(r)
		if err != nil {
			return out, nil // a record cut short by the end of the capture
		}
		typ, body := rec.typ, rec.payload
		if dec != nil && typ == recordApplicationData {
			if typ, body, err = dec.open(rec); err != nil {
				return out, err
			}
		}
		switch typ {
		case recordApplicationData:
			if out.FirstDataRecord == 0 {
				out.FirstDataRecord = len(rec.payload)
			}
			out.DataRecords++
			out.DataWireBytes += int64(5 + len(rec.payload))
			if dec != nil {
				out.DataPlainBytes += int64(len(body))
			}
		case recordHandshake:
			hs.buf = append(hs.buf, body...)
			flightEnd, err := out.readHandshake(&hs, &dec, cs, kl)
			if err != nil {
				return out, err
			}
			if flightEnd && out.FirstFlight == 0 {
				out.FirstFlight = len(raw) - r.Len()
			}
		}
	}
	return out, nil
}

// readHandshake handles complete handshake messages: tickets are noted and
// the TLS 1.3 server Finished switches to the application traffic keys. It
// reports whether a message that ends the server's first flight was seen.
func (out *ServerRecords) readHandshake(hs *handshakeReader, dec **decrypter, cs tls.ConnectionState, kl *keyLog) (flightEnd bool, err error) {
	for {
		typ, body, ok := hs.next()
		if !ok {
			return flightEnd, nil
		}
		switch {
		case typ == msgFinished && *dec != nil:
			d, err := newDecrypter(cs.CipherSuite, kl, "SERVER_TRAFFIC_SECRET_0")
			if err != nil {
				return flightEnd, err
			}
			*dec, flightEnd = d, true
		case typ == msgServerHelloDone:
			flightEnd = true
		case typ == msgCertificate && out.Certificate == 0:
			out.Certificate = 4 + len(body)
		case typ == msgCertificateVerify && out.CertificateVerify == 0:
			out.CertificateVerify = 4 + len(body)
		case typ == msgNewSessionTicket:
			out.Tickets++
			out.readTicket(body, cs.Version == tls.VersionTLS13)
		}
	}
}

func (out *ServerRecords) readTicket(body []byte, tls13 bool) {
	s := cryptobyte.String(body)
	if !s.ReadUint32(&out.TicketLifetime) || !tls13 {
		return
	}
	var ageAdd uint32
	var nonce, ticket, exts cryptobyte.String
	if !s.ReadUint32(&ageAdd) || !s.ReadUint8LengthPrefixed(&nonce) ||
		!s.ReadUint16LengthPrefixed(&ticket) || !s.ReadUint16LengthPrefixed(&exts) {
		return
	}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			return
		}
		if typ == extEarlyData {
			data.ReadUint32(&out.MaxEarlyData)
		}
	}
}

// decrypter opens TLS 1.3 records of one traffic secret (RFC 8446, 5.2-5.3).
type decrypter struct {
	aead cipher.AEAD
	iv   []byte
	seq  uint64
}

func newDecrypter(suite uint16, kl *keyLog, label string) (*decrypter, error) {
	secret, ok := kl.secret(label)
	if !ok {
		return nil, fmt.Errorf("reading TLS 1.3 records: no %s in the key log", label)
	}
	var h func() hash.Hash = sha256.New
	keyLen := 16
	switch suite {
	case tls.TLS_AES_256_GCM_SHA384:
		h, keyLen = sha512.New384, 32
	case tls.TLS_CHACHA20_POLY1305_SHA256:
		keyLen = 32
	}
	key, err1 := expandLabel(h, secret, "key", keyLen)
	iv, err2 := expandLabel(h, secret, "iv", 12)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	var aead cipher.AEAD
	var err error
	if suite == tls.TLS_CHACHA20_POLY1305_SHA256 {
		aead, err = chacha20poly1305.New(key)
	} else {
		var block cipher.Block
		if block, err = aes.NewCipher(key); err == nil {
			aead, err = cipher.NewGCM(block)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading TLS 1.3 records: %w", err)
	}
	return &decrypter{aead: aead, iv: iv}, nil
}

// expandLabel is HKDF-Expand-Label of RFC 8446, section 7.1, with an empty context.
func expandLabel(h func() hash.Hash, secret []byte, label string, n int) ([]byte, error) {
	var b cryptobyte.Builder
	b.AddUint16(uint16(n))
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte("tls13 " + label)) })
	b.AddUint8(0)
	info, err := b.Bytes()
	if err != nil {
		return nil, fmt.Errorf("building HKDF label: %w", err)
	}
	return hkdf.Expand(h, secret, string(info), n)
}

// open decrypts one record and returns its inner content type and content.
func (d *decrypter) open(rec record) (uint8, []byte, error) {
	nonce := bytes.Clone(d.iv)
	for i := range 8 {
		nonce[len(nonce)-1-i] ^= byte(d.seq >> (8 * i))
	}
	d.seq++
	n := len(rec.payload)
	aad := []byte{rec.typ, byte(rec.version >> 8), byte(rec.version), byte(n >> 8), byte(n)}
	plain, err := d.aead.Open(nil, nonce, rec.payload, aad)
	if err != nil {
		return 0, nil, fmt.Errorf("reading TLS 1.3 records: %w", err)
	}
	plain = bytes.TrimRight(plain, "\x00")
	if len(plain) == 0 {
		return 0, nil, errors.New("reading TLS 1.3 records: record without content type")
	}
	return plain[len(plain)-1], plain[:len(plain)-1], nil
}
