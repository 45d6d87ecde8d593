package tlsscan

import (
	"crypto/ecdh"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"golang.org/x/crypto/cryptobyte"
)

// The key exchanges of the renegotiation check's TLS 1.2 handshake:
// ECDHE on X25519, P-256, P-384 or P-521, finite-field DHE on the
// server's group, and RSA. Each reads what the server's ServerKeyExchange sent and makes the
// ClientKeyExchange and the premaster secret.

// renegGroups are the ECDHE groups the check offers: every curve a
// server may be held to (nginx's ssl_ecdh_curve secp384r1, say) that
// crypto/ecdh computes with.
var renegGroups = map[tls.CurveID]ecdh.Curve{tls.X25519: ecdh.X25519(), tls.CurveP256: ecdh.P256(),
	tls.CurveP384: ecdh.P384(), tls.CurveP521: ecdh.P521()}

// renegGroupOrder is the order of renegGroups in the ClientHello.
var renegGroupOrder = []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}

// dhGroup is a finite-field group as a ServerKeyExchange sends it.
type dhGroup struct{ p, g *big.Int }

// maxDHBits bounds the prime the check computes with: that of ffdhe8192
// (RFC 7919), the largest group servers are set up with.
const maxDHBits = 8192

// dhExponentBits is the size of the client's DHE exponent. The session
// carries nothing secret, so a short exponent (RFC 7919, 5.2, allows
// them) keeps the exponentiations in a large group to milliseconds.
const dhExponentBits = 256

// readECDHParams reads the ServerKeyExchange of an ECDHE suite: a named
// curve, one of those offered, and the server's point.
func (out *fullFlight) readECDHParams(body []byte) error {
	s := cryptobyte.String(body)
	var curveType uint8
	var group uint16
	var point cryptobyte.String
	if !s.ReadUint8(&curveType) || curveType != 3 || !s.ReadUint16(&group) || !s.ReadUint8LengthPrefixed(&point) {
		return errors.New("parsing ServerKeyExchange: not a named curve")
	}
	curve, ok := renegGroups[tls.CurveID(group)]
	if !ok {
		return fmt.Errorf("ServerKeyExchange: group %d is not one offered", group)
	}
	out.curve = curve
	out.serverKey = append([]byte(nil), point...)
	return nil
}

// readDHParams reads the ServerKeyExchange of a DHE suite: the prime p,
// the generator g and the server's public value, which must lie between
// 2 and p-2 (RFC 7919, 5.1), as g must.
func (out *fullFlight) readDHParams(body []byte) error {
	s := cryptobyte.String(body)
	var p, g, y cryptobyte.String
	if !s.ReadUint16LengthPrefixed(&p) || !s.ReadUint16LengthPrefixed(&g) || !s.ReadUint16LengthPrefixed(&y) {
		return errors.New("parsing ServerKeyExchange: not DHE parameters")
	}
	grp := &dhGroup{p: new(big.Int).SetBytes(p), g: new(big.Int).SetBytes(g)}
	if bits := grp.p.BitLen(); bits > maxDHBits {
		return fmt.Errorf("ServerKeyExchange: a %d-bit DH prime, larger than the %d bits the check computes with", bits, maxDHBits)
	}
	if !grp.element(grp.g) || !grp.element(new(big.Int).SetBytes(y)) {
		return errors.New("ServerKeyExchange: a DH generator or public value outside 2 to p-2")
	}
	out.dh, out.serverKey = grp, append([]byte(nil), y...)
	return nil
}

// element reports whether 1 < x < p-1.
func (grp *dhGroup) element(x *big.Int) bool {
	return x.Cmp(big.NewInt(1)) > 0 && x.Cmp(new(big.Int).Sub(grp.p, big.NewInt(1))) < 0
}

// clientKeyExchange returns the ClientKeyExchange message and the
// premaster secret for the flight's key exchange.
func (f *fullFlight) clientKeyExchange() (msg, pre []byte, err error) {
	switch {
	case f.curve != nil:
		return f.ecdheKeyExchange()
	case f.dh != nil:
		return f.dheKeyExchange()
	case f.hello != nil && !strings.HasPrefix(SuiteName(f.hello.suite), "TLS_RSA_"):
		return nil, nil, fmt.Errorf("the server chose %s and sent no ServerKeyExchange", SuiteName(f.hello.suite))
	}
	return f.rsaKeyExchange()
}

func (f *fullFlight) ecdheKeyExchange() (msg, pre []byte, err error) {
	priv, err := f.curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	peer, err := f.curve.NewPublicKey(f.serverKey)
	if err != nil {
		return nil, nil, fmt.Errorf("the server's key share: %w", err)
	}
	if pre, err = priv.ECDH(peer); err != nil {
		return nil, nil, err
	}
	pub := priv.PublicKey().Bytes()
	return append([]byte{msgClientKeyExchange, 0, 0, byte(len(pub) + 1), byte(len(pub))}, pub...), pre, nil
}

// dheKeyExchange sends g^x mod p and takes the shared value, its leading
// zero bytes stripped (RFC 5246, 8.1.2), as the premaster secret.
func (f *fullFlight) dheKeyExchange() (msg, pre []byte, err error) {
	x, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), dhExponentBits))
	if err != nil {
		return nil, nil, err
	}
	x.Add(x, big.NewInt(2))
	pub := new(big.Int).Exp(f.dh.g, x, f.dh.p).Bytes()
	pre = new(big.Int).Exp(new(big.Int).SetBytes(f.serverKey), x, f.dh.p).Bytes()
	n := len(pub) + 2
	return append([]byte{msgClientKeyExchange, byte(n >> 16), byte(n >> 8), byte(n), byte(len(pub) >> 8), byte(len(pub))}, pub...), pre, nil
}

func (f *fullFlight) rsaKeyExchange() (msg, pre []byte, err error) {
	cert, err := x509.ParseCertificate(f.leaf)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the certificate: %w", err)
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, nil, errors.New("RSA key exchange with a key that is not RSA")
	}
	// TLS's RSA key exchange is PKCS #1 v1.5 (RFC 5246, 7.4.7.1), which
	// crypto/rsa no longer offers: the well-formed message of the ROBOT
	// check is exactly that, a TLS 1.2 premaster secret padded.
	k := pub.Size()
	m := robotMessage(0, k)
	pre = m[k-48:]
	enc := new(big.Int).Exp(new(big.Int).SetBytes(m), big.NewInt(int64(pub.E)), pub.N).FillBytes(make([]byte, k))
	n := len(enc) + 2
	return append([]byte{msgClientKeyExchange, byte(n >> 16), byte(n >> 8), byte(n), byte(len(enc) >> 8), byte(len(enc))}, enc...), pre, nil
}
