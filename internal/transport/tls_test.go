package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestOpenSSLName(t *testing.T) {
	tests := []struct{ iana, want string }{
		{"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256"},
		{"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384"},
		{"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384"},
		{"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA"},
		{"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256"},
		{"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305"},
		{"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA-DES-CBC3-SHA"},
		{"TLS_RSA_WITH_RC4_128_SHA", "RC4-SHA"},
		{"TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256"},
	}
	for _, tt := range tests {
		if got := openSSLName(tt.iana); got != tt.want {
			t.Errorf("openSSLName(%q) = %q; want %q", tt.iana, got, tt.want)
		}
	}
}

func TestParseCiphers(t *testing.T) {
	tests := []struct {
		in      string
		want    []uint16
		wantErr bool
	}{
		{"ECDHE-ECDSA-AES128-GCM-SHA256", []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}, false},
		{"AES256-GCM-SHA384:ecdhe-rsa-chacha20-poly1305", []uint16{tls.TLS_RSA_WITH_AES_256_GCM_SHA384, tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256}, false},
		{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-SHA", []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA}, false},
		{"HIGH:!aNULL", nil, true},
		{"TLS_AES_128_GCM_SHA256", nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseCiphers(tt.in)
		if (err != nil) != tt.wantErr || !slices.Equal(got, tt.want) {
			t.Errorf("ParseCiphers(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestCheckProtocolVersion(t *testing.T) {
	tests := []struct {
		proto   Protocol
		max     uint16
		wantErr string
	}{
		{HTTP2, 0, ""},
		{HTTP2, tls.VersionTLS12, ""},
		{HTTP2, tls.VersionTLS11, "HTTP/2 needs TLS 1.2 or later (RFC 9113, section 9.2), not TLS 1.1"},
		{HTTP3, tls.VersionTLS13, ""},
		{HTTP3, tls.VersionTLS10, "HTTP/3 runs on TLS 1.3 only (RFC 9001, section 4.2), not TLS 1.0"},
		{HTTP3, tls.VersionTLS12, "HTTP/3 runs on TLS 1.3 only (RFC 9001, section 4.2), not TLS 1.2"},
		{HTTP3, 0, ""},
		{HTTP1, tls.VersionTLS10, ""},
	}
	for _, tt := range tests {
		err := CheckProtocolVersion(tt.proto, tt.max)
		if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("CheckProtocolVersion(%s, %x) = %v; want %q", tt.proto, tt.max, err, tt.wantErr)
		}
	}
}

// TestLoadPoolBounded: a CA bundle larger than any real one is refused
// after 16 MiB, so a device that never ends (/dev/zero) cannot exhaust
// memory.
func TestLoadPoolBounded(t *testing.T) {
	if _, err := loadPool("/dev/zero"); err == nil || !strings.Contains(err.Error(), "more than 16 MiB") {
		t.Errorf("loadPool(/dev/zero) = %v; want the size refused", err)
	}
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadPool(notPEM); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("loadPool(%s) = %v; want no PEM certificate", notPEM, err)
	}
}

// TestRootCAsPool: a CA pool held in memory verifies the server as a CA
// file would, the system roots alone do not, and a file and a pool
// together are refused rather than merged.
func TestRootCAsPool(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	addr := srv.Listener.Addr().String()
	handshake := func(tt TLS) error {
		cfg, err := tt.Config()
		if err != nil {
			return err
		}
		cfg.ServerName = "example.com" // a name in httptest's certificate
		c, err := tls.Dial("tcp", addr, cfg)
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := handshake(TLS{Trust: Trust{RootCAs: pool}}); err != nil {
		t.Errorf("handshake with the server's CA as a pool: %v; want verified", err)
	}
	var unknown x509.UnknownAuthorityError
	if err := handshake(TLS{}); !errors.As(err, &unknown) {
		t.Errorf("handshake with the system roots: %v; want an unknown authority", err)
	}
	if _, err := (TLS{Trust: Trust{RootCAs: pool, CAFile: "ca.pem"}}).Config(); err == nil || !strings.Contains(err.Error(), "both a CA file (ca.pem) and a CA pool") {
		t.Errorf("Config with a CA file and a pool = %v; want both refused", err)
	}
}
