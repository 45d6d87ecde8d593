package transport

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"fmt"
	"net"
	"net/url"
	"strconv"
)

// HostPort returns u's host:port, with the scheme's default port (80 for
// http, 443 for https) when the URL has none.
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// KeyType names a certificate's public key as "ECDSA P-256", "RSA 2048"
// or "Ed25519"; another key type is named by its Go type.
func KeyType(pub any) string {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		return "ECDSA " + k.Curve.Params().Name
	case *rsa.PublicKey:
		return "RSA " + strconv.Itoa(k.N.BitLen())
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return fmt.Sprintf("%T", pub)
}
