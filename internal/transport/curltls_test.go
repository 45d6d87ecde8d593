package transport

import (
	"crypto/tls"
	"testing"
)

func TestCurlTLS(t *testing.T) {
	for _, tt := range []struct {
		in       CurlTLS
		min, max uint16
		ok       bool
	}{
		{CurlTLS{}, 0, 0, true},
		{CurlTLS{TLSv13: true}, tls.VersionTLS13, 0, true},
		{CurlTLS{TLSv12: true, Max: "1.2"}, tls.VersionTLS12, tls.VersionTLS12, true},
		{CurlTLS{Max: "1.1"}, tls.VersionTLS10, tls.VersionTLS11, true}, // the legacy versions, as in curl
		{CurlTLS{TLSv13: true, Max: "1.2"}, 0, 0, false},
		{CurlTLS{Max: "2"}, 0, 0, false},
		{CurlTLS{Ciphers: "NOPE"}, 0, 0, false},
		{CurlTLS{Curves: "x448"}, 0, 0, false},
	} {
		got, err := tt.in.TLS()
		if (err == nil) != tt.ok || (tt.ok && (got.Min != tt.min || got.Max != tt.max)) {
			t.Errorf("%+v.TLS() = min %x max %x, %v; want min %x max %x, ok %t", tt.in, got.Min, got.Max, err, tt.min, tt.max, tt.ok)
		}
	}
	got, err := CurlTLS{Ciphers: "ECDHE-RSA-AES128-GCM-SHA256", Curves: "prime256v1", CAFile: "ca.pem", Insecure: true}.TLS()
	if err != nil || len(got.Ciphers) != 1 || len(got.Curves) != 1 || got.CAFile != "ca.pem" || !got.Insecure {
		t.Errorf("TLS() with ciphers, curves, CA file and -k = %+v, %v", got, err)
	}
}
