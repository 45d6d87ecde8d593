package tlsscan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHSTS(t *testing.T) {
	tests := []struct {
		in   string
		want HSTS
	}{
		{"max-age=63072000; includeSubDomains; preload", HSTS{MaxAge: 63072000, IncludeSubDomains: true, Preload: true}},
		{`max-age="300"`, HSTS{MaxAge: 300}},
		{"MAX-AGE=10 ; INCLUDESUBDOMAINS", HSTS{MaxAge: 10, IncludeSubDomains: true}},
		{"max-age=x", HSTS{}},
		{"", HSTS{}},
	}
	for _, tt := range tests {
		tt.want.Header = tt.in
		if got := parseHSTS(tt.in); got != tt.want {
			t.Errorf("parseHSTS(%q) = %+v; want %+v", tt.in, got, tt.want)
		}
	}
}

func TestCSPUnsafe(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"default-src 'self'", nil},
		{"default-src 'self' 'unsafe-inline'", []string{"unsafe-inline"}},
		{"default-src 'unsafe-inline'; script-src 'self'", nil},
		{"script-src 'self' 'unsafe-eval' 'unsafe-inline'", []string{"unsafe-inline", "unsafe-eval"}},
		{"style-src 'unsafe-inline'", nil},
	}
	for _, tt := range tests {
		if got := cspUnsafe(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("cspUnsafe(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestAltSvcH3Port(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{`h3=":443"; ma=86400`, "443", true},
		{`h3-29=":443", h3=":8443"`, "8443", true},
		{`h2="alt.example:443"`, "", false},
		{`h3="alt.example:4433"; persist=1`, "4433", true},
		{"clear", "", false},
	}
	for _, tt := range tests {
		got, ok := altSvcH3Port(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("altSvcH3Port(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNginxVersionFix(t *testing.T) {
	tests := []struct {
		server, want string
	}{
		{"nginx/1.22.1", "listen 443 ssl http2;"},
		{"nginx/1.25.1", "http2 on;"},
		{"nginx/1.27.0 (Ubuntu)", "http2 on;"},
		{"nginx/", "# nginx 1.25.1 or later:\nhttp2 on;\n# older nginx:\nlisten 443 ssl http2;"},
		{"Apache", "# nginx 1.25.1 or later:\nhttp2 on;\n# older nginx:\nlisten 443 ssl http2;"},
	}
	for _, tt := range tests {
		if got := versionFix(nginxVersion(tt.server), "1.25.1", "http2 on;", "listen 443 ssl http2;"); got != tt.want {
			t.Errorf("fix for %q = %q; want %q", tt.server, got, tt.want)
		}
	}
}

func TestDotfileContent(t *testing.T) {
	tests := []struct {
		path, body string
		want       bool
	}{
		{"/.git/HEAD", "ref: refs/heads/main\n", true},
		{"/.git/HEAD", "3f786850e387550fdab836ed7e6dc881de23001b\n", true},
		{"/.git/HEAD", "<!doctype html><title>Not here</title>", false},
		{"/.git/HEAD", "Welcome to our shop", false},
		{"/.git/HEAD", "3f786850e387550fdab836ed7e6dc881de23001", false},
		{"/.env", "SECRET=lab\n", true},
		{"/.env", "# settings\nexport DB_URL=postgres://x\n", true},
		{"/.env", "<html><body>Page not found</body></html>", false},
		{"/.env", "{\"error\": \"not found\"}", false},
		{"/.env", "", false},
	}
	for _, tt := range tests {
		if got := dotfileContent(tt.path, []byte(tt.body)); got != tt.want {
			t.Errorf("dotfileContent(%q, %q) = %v; want %v", tt.path, tt.body, got, tt.want)
		}
	}
}
