package transport

import (
	"crypto/tls"
	"slices"
	"strings"
	"testing"
)

func TestGroupName(t *testing.T) {
	tests := []struct {
		id   tls.CurveID
		want string
	}{
		{tls.X25519, "x25519"},
		{tls.CurveP256, "secp256r1"},
		{tls.CurveP384, "secp384r1"},
		{tls.CurveP521, "secp521r1"},
		{tls.X25519MLKEM768, "X25519MLKEM768"},
		{tls.SecP256r1MLKEM768, "SecP256r1MLKEM768"},
		{tls.SecP384r1MLKEM1024, "SecP384r1MLKEM1024"},
		{GroupX448, "x448"},
		{GroupFFDHE2048, "ffdhe2048"},
		{GroupFFDHE8192, "ffdhe8192"},
		{tls.CurveID(0x1234), "CurveID(4660)"},
	}
	for _, tt := range tests {
		if got := GroupName(tt.id); got != tt.want {
			t.Errorf("GroupName(%#04x) = %q; want %q", uint16(tt.id), got, tt.want)
		}
	}
}

func TestParseGroups(t *testing.T) {
	tests := []struct {
		in      string
		want    []tls.CurveID
		wantErr string
	}{
		{"x25519:secp256r1", []tls.CurveID{tls.X25519, tls.CurveP256}, ""},
		{"X25519:P-256", []tls.CurveID{tls.X25519, tls.CurveP256}, ""},
		{"prime256v1,secp384r1,secp521r1", []tls.CurveID{tls.CurveP256, tls.CurveP384, tls.CurveP521}, ""},
		{"P-384 P-521 p256", []tls.CurveID{tls.CurveP384, tls.CurveP521, tls.CurveP256}, ""},
		{"x25519mlkem768:SecP256r1MLKEM768:secp384r1mlkem1024", []tls.CurveID{tls.X25519MLKEM768, tls.SecP256r1MLKEM768, tls.SecP384r1MLKEM1024}, ""},
		{"CurveP256", []tls.CurveID{tls.CurveP256}, ""},
		{"X448", nil, "group x448 is not one Go's TLS can offer"},
		{"x25519:ffdhe2048", nil, "group ffdhe2048 is not one Go's TLS can offer"},
		{"brainpoolP256r1", nil, `unknown group "brainpoolP256r1"`},
		{"", nil, "empty list"},
	}
	for _, tt := range tests {
		got, err := ParseGroups(tt.in)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) || !slices.Equal(got, tt.want) {
			t.Errorf("ParseGroups(%q) = %v, %v; want %v, error %q", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestGroupNamesRoundTrip: every group a client can offer is read back
// from the name every output gives it.
func TestGroupNamesRoundTrip(t *testing.T) {
	for _, id := range offered {
		if got, err := ParseGroups(GroupName(id)); err != nil || !slices.Equal(got, []tls.CurveID{id}) {
			t.Errorf("ParseGroups(GroupName(%v)) = %v, %v; want [%v]", id, got, err, id)
		}
	}
}

func FuzzParseGroups(f *testing.F) {
	for _, s := range []string{"X25519:P-256", "secp384r1", "prime256v1,x448", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ParseGroups(s)
		if err == nil && len(ids) == 0 {
			t.Errorf("ParseGroups(%q): no error and no groups", s)
		}
		for _, id := range ids {
			if !slices.Contains(offered, id) {
				t.Errorf("ParseGroups(%q) holds %v, which Go's TLS cannot offer", s, id)
			}
		}
	})
}
