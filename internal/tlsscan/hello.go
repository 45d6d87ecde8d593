package tlsscan

import (
	"crypto/ecdh"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/tls"
	"fmt"
	"net"

	"golang.org/x/crypto/cryptobyte"

	"github.com/httpslab/httpslab/internal/transport"
)

// Protocol versions as they appear on the wire.
const (
	VersionSSL30 uint16 = 0x0300
	VersionTLS10 uint16 = tls.VersionTLS10
	VersionTLS11 uint16 = tls.VersionTLS11
	VersionTLS12 uint16 = tls.VersionTLS12
	VersionTLS13 uint16 = tls.VersionTLS13
)

// ffdheBits is the prime size of each finite-field group (RFC 7919).
var ffdheBits = map[tls.CurveID]int{transport.GroupFFDHE2048: 2048, transport.GroupFFDHE3072: 3072, transport.GroupFFDHE4096: 4096,
	transport.GroupFFDHE6144: 6144, transport.GroupFFDHE8192: 8192}

// allGroups are the groups audit asks servers about, in the order a
// modern browser prefers them.
var allGroups = []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521,
	transport.GroupX448, transport.GroupFFDHE2048, transport.GroupFFDHE3072, transport.GroupFFDHE4096, transport.GroupFFDHE6144, transport.GroupFFDHE8192}

// sigAlgs are the signature algorithms offered: every common one, so
// that the server's choice of suite is never limited by them.
var sigAlgs = []uint16{0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0804, 0x0805, 0x0806,
	0x0809, 0x080a, 0x080b, 0x0401, 0x0501, 0x0601, 0x0203, 0x0201}

// Extension code points (IANA TLS ExtensionType Values).
const (
	extServerName       = 0
	extSupportedGroups  = 10
	extECPointFormats   = 11
	extSignatureAlgs    = 13
	extALPN             = 16
	extExtendedMaster   = 23
	extSessionTicket    = 35
	extEarlyData        = 42
	extSupportedVersion = 43
	extPSKModes         = 45
	extKeyShare         = 51
	extRenegotiation    = 0xff01
)

// clientHello describes one hand-built ClientHello.
type clientHello struct {
	version    uint16        // the version offered; TLS 1.3 goes into supported_versions
	suites     []uint16      // cipher suites in preference order
	groups     []tls.CurveID // supported_groups; nil means allGroups
	keyShares  []tls.CurveID // TLS 1.3 key shares; empty asks for a HelloRetryRequest
	serverName string        // SNI; empty or an IP address sends none
	sessionID  []byte        // a session to resume (TLS 1.2 and older)
	alpn       []string      // ALPN protocols
	noTicket   bool          // leave out the session_ticket extension
	ticket     []byte        // a session ticket to offer in session_ticket
	// compression lists the compression methods offered; nil means null only.
	compression []uint8
	// renegotiationInfo is the body of renegotiation_info: empty in a
	// first handshake, the client's last verify_data in a renegotiation.
	renegotiationInfo []byte
	// extraExts are extensions added after the others, type and body.
	extraExts []rawExtension
}

// rawExtension is one extension as it goes on the wire.
type rawExtension struct {
	typ  uint16
	body []byte
}

// String describes the ClientHello for messages: its version, how many
// suites it offers and, when it offers one, its group.
func (h clientHello) String() string {
	s := fmt.Sprintf("%s ClientHello with %d suites", tls.VersionName(h.version), len(h.suites))
	if len(h.groups) == 1 {
		s += " and group " + transport.GroupName(h.groups[0])
	}
	return s
}

// marshal returns the ClientHello as one TLS record.
func (h clientHello) marshal() ([]byte, error) {
	random := make([]byte, 32)
	_, _ = rand.Read(random)
	sessionID := h.sessionID
	if sessionID == nil && h.version == VersionTLS13 {
		sessionID = make([]byte, 32) // middlebox compatibility mode (RFC 8446, D.4)
		_, _ = rand.Read(sessionID)
	}
	legacy := min(h.version, VersionTLS12)
	var b cryptobyte.Builder
	b.AddUint8(22) // handshake
	b.AddUint16(min(legacy, VersionTLS10))
	var keyErr error
	b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
		b.AddUint8(1) // client_hello
		b.AddUint24LengthPrefixed(func(b *cryptobyte.Builder) {
			b.AddUint16(legacy)
			b.AddBytes(random)
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(sessionID) })
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, s := range h.suites {
					b.AddUint16(s)
				}
			})
			b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) {
				if h.compression == nil {
					b.AddUint8(0) // null
				}
				b.AddBytes(h.compression)
			})
			if h.version > VersionSSL30 {
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { keyErr = h.addExtensions(b) })
			}
		})
	})
	if keyErr != nil {
		return nil, keyErr
	}
	return b.Bytes()
}

func (h clientHello) addExtensions(b *cryptobyte.Builder) error {
	if h.serverName != "" && net.ParseIP(h.serverName) == nil {
		addExt(b, extServerName, func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				b.AddUint8(0) // host_name
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(h.serverName)) })
			})
		})
	}
	groups := h.groups
	if groups == nil {
		groups = allGroups
	}
	addExt(b, extSupportedGroups, func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, g := range groups {
				b.AddUint16(uint16(g))
			}
		})
	})
	addExt(b, extECPointFormats, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(0) })
	})
	addExt(b, extSignatureAlgs, func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for _, s := range sigAlgs {
				b.AddUint16(s)
			}
		})
	})
	if len(h.alpn) > 0 {
		addExt(b, extALPN, func(b *cryptobyte.Builder) {
			b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
				for _, p := range h.alpn {
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte(p)) })
				}
			})
		})
	}
	addExt(b, extExtendedMaster, func(*cryptobyte.Builder) {})
	if !h.noTicket {
		addExt(b, extSessionTicket, func(b *cryptobyte.Builder) { b.AddBytes(h.ticket) })
	}
	addExt(b, extRenegotiation, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(h.renegotiationInfo) })
	})
	for _, e := range h.extraExts {
		addExt(b, e.typ, func(b *cryptobyte.Builder) { b.AddBytes(e.body) })
	}
	if h.version == VersionTLS13 {
		return h.addTLS13Extensions(b)
	}
	return nil
}

func (h clientHello) addTLS13Extensions(b *cryptobyte.Builder) error {
	addExt(b, extSupportedVersion, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint16(VersionTLS13) })
	})
	addExt(b, extPSKModes, func(b *cryptobyte.Builder) {
		b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddUint8(1) }) // psk_dhe_ke
	})
	shares := make([][]byte, len(h.keyShares))
	for i, g := range h.keyShares {
		k, err := keyShare(g)
		if err != nil {
			return err
		}
		shares[i] = k
	}
	addExt(b, extKeyShare, func(b *cryptobyte.Builder) {
		b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
			for i, g := range h.keyShares {
				b.AddUint16(uint16(g))
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(shares[i]) })
			}
		})
	})
	return nil
}

func addExt(b *cryptobyte.Builder, typ uint16, body func(*cryptobyte.Builder)) {
	b.AddUint16(typ)
	b.AddUint16LengthPrefixed(body)
}

// keyShare returns a fresh public key of group g, of the size and form
// the group defines, so that the server accepts it as a real key share.
func keyShare(g tls.CurveID) ([]byte, error) {
	var curve ecdh.Curve
	switch g {
	case tls.X25519:
		curve = ecdh.X25519()
	case tls.CurveP256:
		curve = ecdh.P256()
	case tls.CurveP384:
		curve = ecdh.P384()
	case tls.CurveP521:
		curve = ecdh.P521()
	case tls.X25519MLKEM768:
		// RFC draft-ietf-tls-ecdhe-mlkem: the ML-KEM-768 encapsulation key, then X25519.
		dk, err := mlkem.GenerateKey768()
		if err != nil {
			return nil, fmt.Errorf("generating ML-KEM-768 key share: %w", err)
		}
		x, err := ecdh.X25519().GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generating X25519 key share: %w", err)
		}
		return append(dk.EncapsulationKey().Bytes(), x.PublicKey().Bytes()...), nil
	default:
		return nil, fmt.Errorf("no key share generator for group %s", transport.GroupName(g))
	}
	k, err := curve.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating %s key share: %w", transport.GroupName(g), err)
	}
	return k.PublicKey().Bytes(), nil
}
