package transport

import (
	"crypto/tls"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint16
		ok   bool
	}{
		{"1.2", tls.VersionTLS12, true}, {"TLSv1.3", tls.VersionTLS13, true}, {"tls1.0", tls.VersionTLS10, true},
		{"1", tls.VersionTLS10, true}, {" 1.1 ", tls.VersionTLS11, true}, {"", 0, true}, {"default", 0, true},
		{"1.4", 0, false}, {"ssl3", 0, false},
	} {
		got, err := ParseVersion(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	if err := CheckVersions(tls.VersionTLS13, tls.VersionTLS12); err == nil {
		t.Error("CheckVersions(1.3, 1.2) = nil; want the range refused")
	}
	if err := CheckVersions(0, tls.VersionTLS12); err != nil {
		t.Errorf("CheckVersions(0, 1.2) = %v; want nil", err)
	}
}
