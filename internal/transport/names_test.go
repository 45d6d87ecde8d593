package transport

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"net/url"
	"testing"
)

func TestHostPort(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://example.com/", "example.com:443"},
		{"http://example.com/x", "example.com:80"},
		{"https://example.com:8443/", "example.com:8443"},
		{"https://[::1]/", "[::1]:443"},
		{"http://127.0.0.1:8080", "127.0.0.1:8080"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := HostPort(u); got != tt.want {
			t.Errorf("HostPort(%q) = %q; want %q", tt.url, got, tt.want)
		}
	}
}

func TestKeyType(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rk, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ed, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  any
		want string
	}{
		{&ec.PublicKey, "ECDSA P-384"},
		{&rk.PublicKey, "RSA 1024"},
		{ed, "Ed25519"},
		{"not a key", "string"},
	}
	for _, tt := range tests {
		if got := KeyType(tt.key); got != tt.want {
			t.Errorf("KeyType(%T) = %q; want %q", tt.key, got, tt.want)
		}
	}
}
