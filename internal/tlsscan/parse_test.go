package tlsscan

import (
	"bytes"
	"crypto/tls"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/cryptobyte"
)

// serverHelloBody builds a ServerHello body for tests.
func serverHelloBody(t testing.TB, version uint16, random []byte, suite uint16, exts func(*cryptobyte.Builder)) []byte {
	t.Helper()
	var b cryptobyte.Builder
	b.AddUint16(min(version, VersionTLS12))
	b.AddBytes(random)
	b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(bytes.Repeat([]byte{7}, 32)) })
	b.AddUint16(suite)
	b.AddUint8(0)
	if exts != nil {
		b.AddUint16LengthPrefixed(exts)
	}
	out, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wrap puts a handshake message into one record.
func wrap(typ uint8, body []byte) []byte {
	msg := append([]byte{typ, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
	return append([]byte{recordHandshake, 3, 3, byte(len(msg) >> 8), byte(len(msg))}, msg...)
}

func tls13Exts(group tls.CurveID, withKey bool) func(*cryptobyte.Builder) {
	return func(b *cryptobyte.Builder) {
		addExt(b, extSupportedVersion, func(b *cryptobyte.Builder) { b.AddUint16(VersionTLS13) })
		addExt(b, extKeyShare, func(b *cryptobyte.Builder) {
			b.AddUint16(uint16(group))
			if withKey {
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes(make([]byte, 32)) })
			}
		})
	}
}

func TestParseServerHello(t *testing.T) {
	random := bytes.Repeat([]byte{1}, 32)
	tests := []struct {
		name string
		body []byte
		want serverHello
	}{
		{"tls12", serverHelloBody(t, VersionTLS12, random, 0xC02B, func(b *cryptobyte.Builder) {
			addExt(b, extSessionTicket, func(*cryptobyte.Builder) {})
			addExt(b, extALPN, func(b *cryptobyte.Builder) {
				b.AddUint16LengthPrefixed(func(b *cryptobyte.Builder) {
					b.AddUint8LengthPrefixed(func(b *cryptobyte.Builder) { b.AddBytes([]byte("h2")) })
				})
			})
		}), serverHello{version: VersionTLS12, suite: 0xC02B}},
		{"tls13", serverHelloBody(t, VersionTLS13, random, 0x1301, tls13Exts(tls.X25519, true)),
			serverHello{version: VersionTLS13, suite: 0x1301, group: tls.X25519}},
		{"hrr", serverHelloBody(t, VersionTLS13, helloRetryRandom, 0x1302, tls13Exts(tls.CurveP384, false)),
			serverHello{version: VersionTLS13, suite: 0x1302, group: tls.CurveP384, retry: true}},
		{"no extensions", serverHelloBody(t, VersionTLS10, random, 0x002F, nil),
			serverHello{version: VersionTLS10, suite: 0x002F}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseServerHello(tt.body)
			if err != nil {
				t.Fatalf("parseServerHello: %v", err)
			}
			got.sessionID = nil
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(serverHello{})); diff != "" {
				t.Errorf("parseServerHello mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseServerHelloRejectsTruncated(t *testing.T) {
	body := serverHelloBody(t, VersionTLS13, bytes.Repeat([]byte{1}, 32), 0x1301, tls13Exts(tls.X25519, true))
	for n := range len(body) {
		if n == 2+32+1+32+2+1 {
			continue // ends right before the extensions: a valid ServerHello without them
		}
		if _, err := parseServerHello(body[:n]); err == nil {
			t.Errorf("parseServerHello(first %d of %d bytes) = nil error; want an error", n, len(body))
		}
	}
}

func TestReadReply(t *testing.T) {
	hello := serverHelloBody(t, VersionTLS12, bytes.Repeat([]byte{1}, 32), 0xC02F, nil)
	var ske cryptobyte.Builder
	ske.AddUint8(3)
	ske.AddUint16(uint16(tls.CurveP384))
	skeBody, _ := ske.Bytes()
	tests := []struct {
		name      string
		stream    []byte
		wantKex   bool
		wantAlert uint8
		wantGroup tls.CurveID
		wantSuite uint16
	}{
		{"alert", []byte{recordAlert, 3, 3, 0, 2, 2, 40}, false, 40, 0, 0},
		{"hello only", wrap(msgServerHello, hello), false, 0, 0, 0xC02F},
		{"key exchange", append(append(wrap(msgServerHello, hello), wrap(msgCertificate, []byte{0, 0, 0})...),
			wrap(msgServerKeyExchange, skeBody)...), true, 0, tls.CurveP384, 0xC02F},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := readReply(bytes.NewReader(tt.stream), tt.wantKex)
			if err != nil {
				t.Fatalf("readReply: %v", err)
			}
			if tt.wantAlert != 0 && (r.alert == nil || r.alert.Description != tt.wantAlert) {
				t.Errorf("alert = %v; want description %d", r.alert, tt.wantAlert)
			}
			if tt.wantSuite != 0 && (r.hello == nil || r.hello.suite != tt.wantSuite) {
				t.Errorf("hello = %+v; want suite %#04x", r.hello, tt.wantSuite)
			}
			if tt.wantGroup != 0 && (r.kex == nil || r.kex.group != tt.wantGroup) {
				t.Errorf("kex = %+v; want group %v", r.kex, tt.wantGroup)
			}
		})
	}
}

func TestClientHelloRoundTrip(t *testing.T) {
	h := clientHello{version: VersionTLS13, suites: []uint16{0x1301, 0x1302}, serverName: "example.test",
		keyShares: []tls.CurveID{tls.X25519MLKEM768, tls.X25519, tls.CurveP256}, alpn: []string{"h2"}}
	rec, err := h.marshal()
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	if rec[0] != recordHandshake || int(rec[3])<<8|int(rec[4]) != len(rec)-5 {
		t.Fatalf("record header % x does not frame %d bytes", rec[:5], len(rec)-5)
	}
	// Servers check key share sizes first: read them back.
	s := cryptobyte.String(rec[5+4+2+32:])
	var sid, suites, comp, exts cryptobyte.String
	if !s.ReadUint8LengthPrefixed(&sid) || !s.ReadUint16LengthPrefixed(&suites) ||
		!s.ReadUint8LengthPrefixed(&comp) || !s.ReadUint16LengthPrefixed(&exts) || !s.Empty() {
		t.Fatal("ClientHello does not parse")
	}
	sizes := map[tls.CurveID]int{}
	for !exts.Empty() {
		var typ uint16
		var data cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
			t.Fatal("bad extension")
		}
		if typ != extKeyShare {
			continue
		}
		var list cryptobyte.String
		data.ReadUint16LengthPrefixed(&list)
		for !list.Empty() {
			var g uint16
			var key cryptobyte.String
			list.ReadUint16(&g)
			list.ReadUint16LengthPrefixed(&key)
			sizes[tls.CurveID(g)] = len(key)
		}
	}
	want := map[tls.CurveID]int{tls.X25519MLKEM768: 1184 + 32, tls.X25519: 32, tls.CurveP256: 65}
	if diff := cmp.Diff(want, sizes); diff != "" {
		t.Errorf("key share sizes (-want +got):\n%s", diff)
	}
}

func FuzzParseServerHello(f *testing.F) {
	f.Add(serverHelloBody(f, VersionTLS13, helloRetryRandom, 0x1301, tls13Exts(tls.X25519, false)))
	f.Add(serverHelloBody(f, VersionTLS12, bytes.Repeat([]byte{1}, 32), 0xC02F, nil))
	f.Add([]byte{3, 3})
	f.Fuzz(func(t *testing.T, body []byte) {
		h, err := parseServerHello(body)
		if err == nil && len(h.sessionID) > len(body) {
			t.Errorf("session ID of %d bytes from a %d-byte body", len(h.sessionID), len(body))
		}
	})
}

func FuzzReadReply(f *testing.F) {
	hello := serverHelloBody(f, VersionTLS12, bytes.Repeat([]byte{1}, 32), 0xC02F, nil)
	f.Add(wrap(msgServerHello, hello), true)
	f.Add([]byte{recordAlert, 3, 3, 0, 2, 2, 70}, false)
	f.Add(append(wrap(msgServerHello, hello), wrap(msgServerKeyExchange, []byte{3, 0, 23})...), true)
	f.Add([]byte{recordHandshake, 3, 3, 0xff, 0xff}, false)
	f.Fuzz(func(t *testing.T, stream []byte, wantKex bool) {
		r, err := readReply(bytes.NewReader(stream), wantKex)
		if err == nil && r.alert == nil && r.hello == nil && !r.ccs {
			t.Errorf("readReply(% x) returned nothing and no error", stream)
		}
	})
}

func FuzzReadServerRecords(f *testing.F) {
	f.Add(append(wrap(msgNewSessionTicket, []byte{0, 0, 1, 44, 0, 0}), recordApplicationData, 3, 3, 0, 1, 0))
	f.Add([]byte{recordApplicationData, 3, 3, 0x40, 0x00})
	f.Fuzz(func(t *testing.T, raw []byte) {
		recs, err := readServerRecords(raw, tls.ConnectionState{Version: tls.VersionTLS12}, &keyLog{})
		if err == nil && recs.FirstDataRecord > maxRecord {
			t.Errorf("first record %d bytes, over the limit", recs.FirstDataRecord)
		}
	})
}
