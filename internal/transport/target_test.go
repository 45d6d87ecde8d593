package transport

import (
	"net/url"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url, wantHost, wantErr string
		wantPort               int
	}{
		{"https://example.com/", "example.com", "", 443},
		{"http://example.com/", "example.com", "", 80},
		{"https://Example.COM:8443/", "Example.COM:8443", "", 8443}, // case stays as given
		{"https://[::1]:1/", "[::1]:1", "", 1},
		{"http://127.0.0.1:65535/", "127.0.0.1:65535", "", 65535},
		{"https://bücher.test/", "xn--bcher-kva.test", "", 443},
		{"https://BÜCHER.test:8443/x", "xn--bcher-kva.test:8443", "", 8443},
		{"https://[::1]:65536/", "", `port "65536": want 1 to 65535`, 0},
		{"http://127.0.0.1:0/", "", `port "0": want 1 to 65535`, 0},
		{"ftp://127.0.0.1/", "", `scheme "ftp" is not http or https`, 0},
		{"https:///path", "", "no host", 0},
		{"https://bad\u00adname\u200d.test/", "", "not a valid internationalized domain name", 0},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckURL(u)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("CheckURL(%q) = %v; want an error with %q", tt.url, err, tt.wantErr)
			}
			continue
		}
		if err != nil || u.Host != tt.wantHost || URLPort(u) != tt.wantPort {
			t.Errorf("CheckURL(%q) = %v, host %q, port %d; want nil, %q, %d", tt.url, err, u.Host, URLPort(u), tt.wantHost, tt.wantPort)
		}
	}
}

func TestCheckMethod(t *testing.T) {
	tests := []struct {
		method string
		ok     bool
	}{
		{"", true}, {"GET", true}, {"PROPFIND", true}, {"M-SEARCH", true},
		{"GE T", false}, {"GET\r\nX-Evil: 1", false}, {"GET /", false}, {"\x00", false},
	}
	for _, tt := range tests {
		if err := CheckMethod(tt.method); (err == nil) != tt.ok {
			t.Errorf("CheckMethod(%q) = %v; want ok %v", tt.method, err, tt.ok)
		}
	}
}

func TestRequestMethod(t *testing.T) {
	for _, tt := range []struct {
		method string
		body   bool
		want   string
	}{
		{"", false, "GET"}, {"", true, "POST"}, {"PUT", true, "PUT"}, {"HEAD", false, "HEAD"},
	} {
		if got := RequestMethod(tt.method, tt.body); got != tt.want {
			t.Errorf("RequestMethod(%q, %v) = %q; want %q", tt.method, tt.body, got, tt.want)
		}
	}
}
