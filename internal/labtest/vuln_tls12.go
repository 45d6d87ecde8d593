package labtest

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"net"
)

// A TLS 1.2 server written out by hand, for the flaws that need a whole
// handshake and a server that Go's does not imitate: one without
// renegotiation_info that renegotiates when the client asks, and one
// whose RSA key exchange answers a malformed premaster secret otherwise
// than a well-formed one (ROBOT). It knows one suite,
// TLS_RSA_WITH_AES_128_GCM_SHA256, which needs no ServerKeyExchange.

const suiteRSAAES128GCM = 0x009c

// tls12Conn is the record layer of one connection.
type tls12Conn struct {
	c             net.Conn
	in, out       *gcmState // nil until a ChangeCipherSpec
	pendIn, pendO *gcmState // the keys the next ChangeCipherSpecs switch to
	hs            []byte    // handshake bytes read and not yet a message
}

// gcmState is one direction's AES-GCM keys (RFC 5288).
type gcmState struct {
	aead cipher.AEAD
	salt []byte
	seq  uint64
}

func newGCM(key, salt []byte) *gcmState {
	block, _ := aes.NewCipher(key)
	aead, _ := cipher.NewGCM(block)
	return &gcmState{aead: aead, salt: salt}
}

func (g *gcmState) nonceAAD(typ uint8, n int) (nonce, explicit, aad []byte) {
	explicit = binary.BigEndian.AppendUint64(nil, g.seq)
	aad = binary.BigEndian.AppendUint64(nil, g.seq)
	aad = append(aad, typ, 3, 3, byte(n>>8), byte(n))
	g.seq++
	return append(append([]byte(nil), g.salt...), explicit...), explicit, aad
}

func (t *tls12Conn) write(typ uint8, payload []byte) error {
	if t.out != nil {
		nonce, explicit, aad := t.out.nonceAAD(typ, len(payload))
		payload = t.out.aead.Seal(explicit, nonce, payload, aad)
	}
	_, err := t.c.Write(record(typ, 0x0303, payload))
	return err
}

func (t *tls12Conn) read() (tlsRecord, error) {
	rec, err := readRecord(t.c)
	if err != nil || t.in == nil {
		return rec, err
	}
	if len(rec.payload) < 8+16 {
		return rec, errors.New("record too short")
	}
	nonce, _, aad := t.in.nonceAAD(rec.typ, len(rec.payload)-8-16)
	copy(nonce[4:], rec.payload[:8])
	rec.payload, err = t.in.aead.Open(nil, nonce, rec.payload[8:], aad)
	return rec, err
}

// readMessage returns the next handshake message (header included),
// switching the read keys at a ChangeCipherSpec; at most 16 records.
func (t *tls12Conn) readMessage() ([]byte, error) {
	for range 16 {
		if len(t.hs) >= 4 {
			n := 4 + (int(t.hs[1])<<16 | int(t.hs[2])<<8 | int(t.hs[3]))
			if len(t.hs) >= n {
				msg := t.hs[:n]
				t.hs = t.hs[n:]
				return msg, nil
			}
		}
		rec, err := t.read()
		if err != nil {
			return nil, err
		}
		switch rec.typ {
		case 20:
			t.in, t.pendIn = t.pendIn, nil
		case 22:
			t.hs = append(t.hs, rec.payload...)
		default:
			return nil, errors.New("unexpected record")
		}
	}
	return nil, errors.New("too many records")
}

// prf is the TLS 1.2 PRF with SHA-256 (RFC 5246, 5).
func prf(secret []byte, label string, seed []byte, n int) []byte {
	seed = append([]byte(label), seed...)
	var out []byte
	a := seed
	for len(out) < n {
		m := hmac.New(sha256.New, secret)
		m.Write(a)
		a = m.Sum(nil)
		m = hmac.New(sha256.New, secret)
		m.Write(a)
		m.Write(seed)
		out = m.Sum(out)
	}
	return out[:n]
}

// handshake12 runs one full handshake for the ClientHello h; with secure
// renegotiation it sends renegotiation_info carrying the previous
// handshake's verify data (RFC 5746). It returns the client's and the
// server's verify data.
func (s *VulnServer) handshake12(t *tls12Conn, h clientHello, secure bool, prevClient, prevServer []byte) ([]byte, []byte, error) {
	serverRandom := make([]byte, 32)
	_, _ = rand.Read(serverRandom)
	sid := make([]byte, 32)
	_, _ = rand.Read(sid)
	var exts map[uint16][]byte
	if secure {
		ri := append(append([]byte{byte(len(prevClient) + len(prevServer))}, prevClient...), prevServer...)
		exts = map[uint16][]byte{0xff01: ri}
	}
	sh := handshakeMsg(2, serverHelloBodyRandom(0x0303, serverRandom, sid, suiteRSAAES128GCM, exts))
	flight := append(append(sh, handshakeMsg(11, certificateBody(s.cert.Certificate))...), handshakeMsg(14, nil)...)
	transcript := append(append([]byte(nil), h.msg...), flight...)
	if err := t.write(22, flight); err != nil {
		return nil, nil, err
	}
	cke, err := t.readMessage()
	if err != nil || cke[0] != 16 || len(cke) < 6 {
		return nil, nil, errors.New("no ClientKeyExchange")
	}
	transcript = append(transcript, cke...)
	key := s.cert.PrivateKey.(*rsa.PrivateKey)
	// A malformed premaster secret is replaced by a random one (RFC 5246,
	// 7.4.7.1): the Finished then fails as any wrong one does, and the
	// answer tells nothing about the padding (no ROBOT here).
	pre := make([]byte, 48)
	_, _ = rand.Read(pre)
	if m := rsaOpen(key, cke[6:]); len(m) > 48 && m[0] == 0 && m[1] == 2 && m[len(m)-49] == 0 {
		copy(pre, m[len(m)-48:])
	}
	master := prf(pre, "master secret", append(append([]byte(nil), h.random...), serverRandom...), 48)
	kb := prf(master, "key expansion", append(append([]byte(nil), serverRandom...), h.random...), 40)
	t.pendIn, t.pendO = newGCM(kb[0:16], kb[32:36]), newGCM(kb[16:32], kb[36:40])
	fin, err := t.readMessage() // the ChangeCipherSpec before it switches the keys
	sum := sha256.Sum256(transcript)
	if err != nil || fin[0] != 20 || !hmac.Equal(fin[4:], prf(master, "client finished", sum[:], 12)) {
		_ = t.write(21, []byte{2, 20}) // bad_record_mac
		return nil, nil, errors.New("no valid Finished")
	}
	transcript = append(transcript, fin...)
	sum = sha256.Sum256(transcript)
	serverVerify := prf(master, "server finished", sum[:], 12)
	if err := t.write(20, []byte{1}); err != nil {
		return nil, nil, err
	}
	t.out, t.pendO = t.pendO, nil
	return fin[4:], serverVerify, t.write(22, handshakeMsg(20, serverVerify))
}

// serveRenegotiating makes the first handshake and then answers requests
// and renegotiates at every ClientHello the client sends, with secure
// renegotiation or without (the flaw of CVE-2009-3555).
func (s *VulnServer) serveRenegotiating(c net.Conn, h clientHello, secure bool) {
	t := &tls12Conn{c: c}
	cv, sv, err := s.handshake12(t, h, secure, nil, nil)
	for range 8 {
		if err != nil {
			return
		}
		rec, rerr := t.read()
		switch {
		case rerr != nil:
			return
		case rec.typ == 23:
			err = t.write(23, []byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n"))
		case rec.typ == 22 && len(rec.payload) > 4 && rec.payload[0] == 1:
			next, perr := parseClientHello(rec.payload[4:])
			if perr != nil {
				return
			}
			next.msg = rec.payload
			cv, sv, err = s.handshake12(t, next, secure, cv, sv)
		default:
			return
		}
	}
}

// serveBleichenbacher answers a ClientKeyExchange by whether its
// premaster secret begins 00 02, the one check of a PKCS #1 v1.5 oracle
// that leaks it: bad_record_mac (the Finished that follows cannot be
// right) when it does, decrypt_error when it does not (ROBOT). suite is
// the one the ServerHello picks.
func (s *VulnServer) serveBleichenbacher(c net.Conn, h clientHello, suite uint16) {
	t := &tls12Conn{c: c}
	serverRandom := make([]byte, 32)
	_, _ = rand.Read(serverRandom)
	sh := handshakeMsg(2, serverHelloBodyRandom(min(h.version, 0x0303), serverRandom, serverRandom, suite, map[uint16][]byte{0xff01: {0}}))
	flight := append(append(sh, handshakeMsg(11, certificateBody(s.cert.Certificate))...), handshakeMsg(14, nil)...)
	if err := t.write(22, flight); err != nil {
		return
	}
	cke, err := t.readMessage()
	if err != nil || cke[0] != 16 || len(cke) < 6 {
		return
	}
	m := rsaOpen(s.cert.PrivateKey.(*rsa.PrivateKey), cke[6:])
	alert := byte(51) // decrypt_error
	if m[0] == 0 && m[1] == 2 {
		alert = 20 // bad_record_mac
	}
	_ = t.write(21, []byte{2, alert})
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<16))
}

// rsaOpen is the raw RSA decryption of c (m = c^d mod n), padding and
// all: TLS's RSA key exchange is PKCS #1 v1.5, which crypto/rsa no
// longer offers, and the ROBOT server must look at the padding itself.
func rsaOpen(key *rsa.PrivateKey, c []byte) []byte {
	return new(big.Int).Exp(new(big.Int).SetBytes(c), key.D, key.N).FillBytes(make([]byte, key.Size()))
}
