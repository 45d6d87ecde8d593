package transport

import (
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"golang.org/x/crypto/cryptobyte"
)

// helloShares returns the supported groups (GREASE left out) and the
// key-share groups of the ClientHello that crypto/tls sends with
// CurvePreferences prefs, read from the bytes on the wire.
func helloShares(t *testing.T, prefs []tls.CurveID) (groups, shares []tls.CurveID) {
	t.Helper()
	client, server := net.Pipe()
	go func() {
		c := tls.Client(client, &tls.Config{InsecureSkipVerify: true, CurvePreferences: prefs})
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Handshake()
	}()
	defer server.Close()
	server.SetDeadline(time.Now().Add(5 * time.Second))
	head := make([]byte, 5)
	if _, err := io.ReadFull(server, head); err != nil {
		t.Fatal(err)
	}
	rec := make([]byte, binary.BigEndian.Uint16(head[3:]))
	if _, err := io.ReadFull(server, rec); err != nil {
		t.Fatal(err)
	}
	s := cryptobyte.String(rec[4:]) // after the handshake header
	var sid, suites, comp, exts cryptobyte.String
	if !s.Skip(2+32) || !s.ReadUint8LengthPrefixed(&sid) || !s.ReadUint16LengthPrefixed(&suites) ||
		!s.ReadUint8LengthPrefixed(&comp) || !s.ReadUint16LengthPrefixed(&exts) {
		t.Fatal("malformed ClientHello")
	}
	for !exts.Empty() {
		var typ uint16
		var body, list cryptobyte.String
		if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&body) {
			t.Fatal("malformed extension")
		}
		if typ != 10 && typ != 51 { // supported_groups, key_share
			continue
		}
		if !body.ReadUint16LengthPrefixed(&list) {
			t.Fatal("malformed group list")
		}
		for !list.Empty() {
			var g uint16
			var share cryptobyte.String
			if !list.ReadUint16(&g) || typ == 51 && !list.ReadUint16LengthPrefixed(&share) {
				t.Fatal("malformed group entry")
			}
			switch {
			case g&0x0f0f == 0x0a0a: // GREASE
			case typ == 10:
				groups = append(groups, tls.CurveID(g))
			default:
				shares = append(shares, tls.CurveID(g))
			}
		}
	}
	return groups, shares
}

// The functions describe what crypto/tls actually sends: checked against
// the ClientHello a server receives.
func TestKeySharesAsSent(t *testing.T) {
	def := OfferedGroups(nil)
	cases := [][]tls.CurveID{
		nil,
		LearnedGroups(tls.X25519, def, false),
		LearnedGroups(tls.CurveP256, def, false),
		LearnedGroups(tls.X25519MLKEM768, def, false),
		LearnedGroups(tls.X25519MLKEM768, def, true),
		{tls.CurveP384, tls.X25519},
	}
	for _, prefs := range cases {
		groups, shares := helloShares(t, prefs)
		if want := OfferedGroups(prefs); !slices.Equal(groups, want) {
			t.Errorf("prefs %v: offered %v, OfferedGroups says %v", prefs, groups, want)
		}
		if want := KeyShares(OfferedGroups(prefs)); !slices.Equal(shares, want) {
			t.Errorf("prefs %v: key shares %v, KeyShares says %v", prefs, shares, want)
		}
	}
}

func TestLearnedGroups(t *testing.T) {
	def := OfferedGroups(nil)
	for _, tt := range []struct {
		chosen    tls.CurveID
		keep      bool
		want      []tls.CurveID
		wantShare []tls.CurveID
	}{
		{tls.X25519, false, []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}, []tls.CurveID{tls.X25519}},
		{tls.CurveP256, false, []tls.CurveID{tls.CurveP256, tls.CurveP384, tls.CurveP521}, []tls.CurveID{tls.CurveP256}},
		{tls.X25519MLKEM768, false, []tls.CurveID{tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024,
			tls.CurveP256, tls.CurveP384, tls.CurveP521}, []tls.CurveID{tls.X25519MLKEM768}},
		{tls.X25519MLKEM768, true, def, []tls.CurveID{tls.X25519MLKEM768, tls.X25519}},
	} {
		got := LearnedGroups(tt.chosen, def, tt.keep)
		if !slices.Equal(got, tt.want) {
			t.Errorf("LearnedGroups(%v, keep %v) = %v, want %v", tt.chosen, tt.keep, got, tt.want)
		}
		if s := KeyShares(got); !slices.Equal(s, tt.wantShare) {
			t.Errorf("LearnedGroups(%v, keep %v): shares %v, want %v", tt.chosen, tt.keep, s, tt.wantShare)
		}
	}
}
