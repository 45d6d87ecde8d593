package tlsscan

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"slices"

	"golang.org/x/crypto/chacha20poly1305"
)

// The record layer of the renegotiation check's TLS 1.2 session: the
// suites it speaks, their keys, and the protection of records in each
// direction, AEAD or CBC, on Go's cryptographic primitives.

// renegSuite is what the check needs of a suite: its PRF hash and its
// record protection.
type renegSuite struct {
	hash   func() hash.Hash
	keyLen int
	// ivLen is the implicit part of an AEAD suite's nonce: GCM's 4-byte
	// salt, then an explicit 8-byte nonce in each record (RFC 5288);
	// ChaCha20's 12-byte IV, XORed with the sequence number (RFC 7905).
	ivLen  int
	chacha bool
	// cbc, for a CBC suite, makes its block cipher, and mac is its HMAC
	// hash: MAC-then-encrypt, since the ClientHello offers no
	// encrypt_then_mac (RFC 5246, 6.2.3.2).
	cbc func(key []byte) (cipher.Block, error)
	mac func() hash.Hash
}

// aeadSuite and cbcSuite describe the two kinds of renegSuite.
func aeadSuite(prf func() hash.Hash, keyLen, ivLen int, chacha bool) renegSuite {
	return renegSuite{hash: prf, keyLen: keyLen, ivLen: ivLen, chacha: chacha}
}

func cbcSuite(prf func() hash.Hash, block func([]byte) (cipher.Block, error), keyLen int, mac func() hash.Hash) renegSuite {
	return renegSuite{hash: prf, keyLen: keyLen, cbc: block, mac: mac}
}

// renegSuites are the suites the handshake offers.
var renegSuites = map[uint16]renegSuite{
	0xc02b: aeadSuite(sha256.New, 16, 4, false), 0xc02f: aeadSuite(sha256.New, 16, 4, false),
	0xc02c: aeadSuite(sha512.New384, 32, 4, false), 0xc030: aeadSuite(sha512.New384, 32, 4, false),
	0xcca9: aeadSuite(sha256.New, 32, 12, true), 0xcca8: aeadSuite(sha256.New, 32, 12, true),
	0x009c: aeadSuite(sha256.New, 16, 4, false), 0x009d: aeadSuite(sha512.New384, 32, 4, false),
	// ECDHE_ECDSA and ECDHE_RSA with AES_128_CBC_SHA, AES_256_CBC_SHA,
	// AES_128_CBC_SHA256, AES_256_CBC_SHA384, 3DES_EDE_CBC_SHA.
	0xc009: cbcSuite(sha256.New, aes.NewCipher, 16, sha1.New), 0xc013: cbcSuite(sha256.New, aes.NewCipher, 16, sha1.New),
	0xc00a: cbcSuite(sha256.New, aes.NewCipher, 32, sha1.New), 0xc014: cbcSuite(sha256.New, aes.NewCipher, 32, sha1.New),
	0xc023: cbcSuite(sha256.New, aes.NewCipher, 16, sha256.New), 0xc027: cbcSuite(sha256.New, aes.NewCipher, 16, sha256.New),
	0xc024: cbcSuite(sha512.New384, aes.NewCipher, 32, sha512.New384), 0xc028: cbcSuite(sha512.New384, aes.NewCipher, 32, sha512.New384),
	0xc008: cbcSuite(sha256.New, des.NewTripleDESCipher, 24, sha1.New), 0xc012: cbcSuite(sha256.New, des.NewTripleDESCipher, 24, sha1.New),
	// RSA with AES_128_CBC_SHA, AES_256_CBC_SHA, AES_128_CBC_SHA256,
	// AES_256_CBC_SHA256, 3DES_EDE_CBC_SHA.
	0x002f: cbcSuite(sha256.New, aes.NewCipher, 16, sha1.New), 0x0035: cbcSuite(sha256.New, aes.NewCipher, 32, sha1.New),
	0x003c: cbcSuite(sha256.New, aes.NewCipher, 16, sha256.New), 0x003d: cbcSuite(sha256.New, aes.NewCipher, 32, sha256.New),
	0x000a: cbcSuite(sha256.New, des.NewTripleDESCipher, 24, sha1.New),
	// DHE_RSA with AES_128_GCM_SHA256, AES_256_GCM_SHA384,
	// CHACHA20_POLY1305_SHA256, then AES_128_CBC_SHA, AES_256_CBC_SHA,
	// AES_128_CBC_SHA256, AES_256_CBC_SHA256, 3DES_EDE_CBC_SHA.
	0x009e: aeadSuite(sha256.New, 16, 4, false), 0x009f: aeadSuite(sha512.New384, 32, 4, false),
	0xccaa: aeadSuite(sha256.New, 32, 12, true),
	0x0033: cbcSuite(sha256.New, aes.NewCipher, 16, sha1.New), 0x0039: cbcSuite(sha256.New, aes.NewCipher, 32, sha1.New),
	0x0067: cbcSuite(sha256.New, aes.NewCipher, 16, sha256.New), 0x006b: cbcSuite(sha256.New, aes.NewCipher, 32, sha256.New),
	0x0016: cbcSuite(sha256.New, des.NewTripleDESCipher, 24, sha1.New),
}

// renegDHE are the suites of renegSuites with finite-field DHE key
// exchange: their ServerKeyExchange carries a prime, a generator and the
// server's public value (RFC 5246, 7.4.3) instead of a named curve.
var renegDHE = []uint16{0x009e, 0x009f, 0xccaa, 0x0033, 0x0039, 0x0067, 0x006b, 0x0016}

// renegOffer is the order of renegSuites in the ClientHello: AEAD before
// CBC; ECDHE, then DHE (for the servers that hold TLS 1.2 to DHE suites),
// then RSA key exchange.
var renegOffer = []uint16{0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0x009e, 0x009f, 0xccaa, 0x009c, 0x009d,
	0xc009, 0xc013, 0xc00a, 0xc014, 0xc023, 0xc027, 0xc024, 0xc028, 0xc008, 0xc012,
	0x0033, 0x0039, 0x0067, 0x006b, 0x0016,
	0x002f, 0x0035, 0x003c, 0x003d, 0x000a}

// recordProtection is one direction of the record layer once the
// ChangeCipherSpec has switched it on.
type recordProtection interface {
	seal(typ uint8, plain []byte) []byte
	open(rec record) ([]byte, error)
}

// keyBlockLen is the length of the suite's key block (RFC 5246, 6.3):
// two MAC keys and two cipher keys for CBC, which draws a random IV
// for each record; two keys and two implicit IVs for AEAD.
func (s renegSuite) keyBlockLen() int {
	if s.cbc != nil {
		return 2*s.mac().Size() + 2*s.keyLen
	}
	return 2*s.keyLen + 2*s.ivLen
}

// protections returns the client's (out) and the server's (in) record
// protection from the key block kb.
func (s renegSuite) protections(kb []byte) (out, in recordProtection, err error) {
	if s.cbc != nil {
		m, k := s.mac().Size(), s.keyLen
		o, err1 := newClientCBC(s, kb[0:m], kb[2*m:2*m+k])
		i, err2 := newClientCBC(s, kb[m:2*m], kb[2*m+k:2*m+2*k])
		return o, i, errors.Join(err1, err2)
	}
	k, v := s.keyLen, s.ivLen
	o, err1 := newClientAEAD(s, kb[0:k], kb[2*k:2*k+v])
	i, err2 := newClientAEAD(s, kb[k:2*k], kb[2*k+v:2*k+2*v])
	return o, i, errors.Join(err1, err2)
}

// clientCBC is one direction of a CBC suite's record layer: HMAC over the
// sequence number, header and content, then padding, then CBC with a
// random IV sent at the head of each record (RFC 5246, 6.2.3.2).
type clientCBC struct {
	block  cipher.Block
	mac    func() hash.Hash
	macKey []byte
	seq    uint64
}

func newClientCBC(s renegSuite, macKey, key []byte) (*clientCBC, error) {
	block, err := s.cbc(key)
	return &clientCBC{block: block, mac: s.mac, macKey: macKey}, err
}

// macOf is the record's MAC, at the current sequence number.
func (c *clientCBC) macOf(typ uint8, content []byte) []byte {
	m := hmac.New(c.mac, c.macKey)
	m.Write(binary.BigEndian.AppendUint64(nil, c.seq))
	m.Write([]byte{typ, 3, 3, byte(len(content) >> 8), byte(len(content))})
	m.Write(content)
	return m.Sum(nil)
}

func (c *clientCBC) seal(typ uint8, plain []byte) []byte {
	bs := c.block.BlockSize()
	data := append(slices.Clone(plain), c.macOf(typ, plain)...)
	pad := (bs - (len(data)+1)%bs) % bs
	for range pad + 1 {
		data = append(data, byte(pad))
	}
	out := make([]byte, bs+len(data))
	_, _ = rand.Read(out[:bs])
	cipher.NewCBCEncrypter(c.block, out[:bs]).CryptBlocks(out[bs:], data)
	c.seq++
	return marshalRecord(typ, VersionTLS12, out)
}

func (c *clientCBC) open(rec record) ([]byte, error) {
	defer func() { c.seq++ }()
	bs, macLen := c.block.BlockSize(), c.mac().Size()
	body := rec.payload
	if len(body) < 2*bs || len(body)%bs != 0 {
		return nil, fmt.Errorf("a CBC record of %d bytes", len(body))
	}
	plain := make([]byte, len(body)-bs)
	cipher.NewCBCDecrypter(c.block, body[:bs]).CryptBlocks(plain, body[bs:])
	pad := int(plain[len(plain)-1])
	if pad+1+macLen > len(plain) {
		return nil, errors.New("bad CBC padding")
	}
	for _, b := range plain[len(plain)-1-pad:] {
		if int(b) != pad {
			return nil, errors.New("bad CBC padding")
		}
	}
	plain = plain[:len(plain)-1-pad]
	content, mac := plain[:len(plain)-macLen], plain[len(plain)-macLen:]
	if !hmac.Equal(mac, c.macOf(rec.typ, content)) {
		return nil, errors.New("bad record MAC")
	}
	return content, nil
}

// clientAEAD is one direction of the record layer.
type clientAEAD struct {
	aead   cipher.AEAD
	iv     []byte
	chacha bool
	seq    uint64
}

func newClientAEAD(s renegSuite, key, iv []byte) (*clientAEAD, error) {
	if s.chacha {
		aead, err := chacha20poly1305.New(key)
		return &clientAEAD{aead: aead, iv: iv, chacha: true}, err
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	return &clientAEAD{aead: aead, iv: iv}, err
}

func (g *clientAEAD) aad(typ uint8, n int) []byte {
	aad := binary.BigEndian.AppendUint64(nil, g.seq)
	return append(aad, typ, 3, 3, byte(n>>8), byte(n))
}

// nonce is the record's nonce and the explicit part sent with it.
func (g *clientAEAD) nonce() (nonce, explicit []byte) {
	seq := binary.BigEndian.AppendUint64(nil, g.seq)
	if g.chacha {
		nonce = slices.Clone(g.iv)
		for i, b := range seq {
			nonce[4+i] ^= b
		}
		return nonce, nil
	}
	return append(slices.Clone(g.iv), seq...), seq
}

func (g *clientAEAD) seal(typ uint8, plain []byte) []byte {
	nonce, explicit := g.nonce()
	out := g.aead.Seal(explicit, nonce, plain, g.aad(typ, len(plain)))
	g.seq++
	return marshalRecord(typ, VersionTLS12, out)
}

func (g *clientAEAD) open(rec record) ([]byte, error) {
	nonce, explicit := g.nonce()
	body := rec.payload
	if explicit != nil {
		if len(body) < 8 {
			return nil, errors.New("encrypted record too short")
		}
		nonce = append(slices.Clone(g.iv), body[:8]...)
		body = body[8:]
	}
	if len(body) < g.aead.Overhead() {
		return nil, errors.New("encrypted record too short")
	}
	plain, err := g.aead.Open(nil, nonce, body, g.aad(rec.typ, len(body)-g.aead.Overhead()))
	g.seq++
	return plain, err
}

// prf12 is the TLS 1.2 PRF with the suite's hash (RFC 5246, 5).
func prf12(h func() hash.Hash, secret []byte, label string, seed []byte, n int) []byte {
	seed = append([]byte(label), seed...)
	var out []byte
	a := seed
	for len(out) < n {
		m := hmac.New(h, secret)
		m.Write(a)
		a = m.Sum(nil)
		m = hmac.New(h, secret)
		m.Write(a)
		m.Write(seed)
		out = m.Sum(out)
	}
	return out[:n]
}

// digest hashes b with h.
func digest(h func() hash.Hash, b []byte) []byte {
	d := h()
	d.Write(b)
	return d.Sum(nil)
}
