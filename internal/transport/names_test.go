package transport

import (
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
