package tlsscan

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in   string
		host string
		port int
		path string
		bad  bool
	}{
		{in: "example.com", host: "example.com", port: 443, path: ""},
		{in: "example.com:8443", host: "example.com", port: 8443},
		{in: "https://127.0.0.1:8443/x?y=1", host: "127.0.0.1", port: 8443, path: "/x?y=1"},
		{in: "[::1]:8443", host: "::1", port: 8443},
		{in: "bücher.test", host: "xn--bcher-kva.test", port: 443},
		{in: "https://Bücher.Test:8443/", host: "xn--bcher-kva.test", port: 8443, path: "/"},
		{in: "bad\u200d.test", bad: true},
		{in: "http://example.com/", bad: true},
		{in: "example.com:99999", bad: true},
		{in: "example.com:0", bad: true},
		{in: "Example.COM", host: "example.com", port: 443},
		{in: "https:///", bad: true},
	}
	for _, tt := range tests {
		host, port, path, err := ParseTarget(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseTarget(%q) = nil error; want an error", tt.in)
			}
			continue
		}
		if err != nil || host != tt.host || port != tt.port || path != tt.path {
			t.Errorf("ParseTarget(%q) = %q, %d, %q, %v; want %q, %d, %q", tt.in, host, port, path, err, tt.host, tt.port, tt.path)
		}
	}
}

// TestAuditCommand runs "httpslab audit" against a lab nginx that serves
// dotfiles: --fail-on high must exit 3 with the JSON envelope on stdout,
// and without --cacert the untrusted chain is an error with a hint.

func TestFirstAtLeast(t *testing.T) {
	r := &Report{Findings: []Finding{{ID: "a", Severity: Info}, {ID: "b", Severity: Medium}, {ID: "c", Severity: Medium}}}
	if f := r.FirstAtLeast(Low); f == nil || f.ID != "b" {
		t.Errorf("FirstAtLeast(low) = %v; want b", f)
	}
	if f := r.FirstAtLeast(High); f != nil {
		t.Errorf("FirstAtLeast(high) = %v; want none", f)
	}
}

// TestPlainPortHints: an http:// target and a plain-HTTP port each get a
// way that works (the HTTPS port with --http-port), never "try http://",
// which audit refuses.
func TestPlainPortHints(t *testing.T) {
	_, _, _, err := ParseTarget("http://example.com:8080/")
	if err == nil || !strings.Contains(err.Error(), "httpslab audit https://example.com/ --http-port 8080") {
		t.Errorf("ParseTarget(http://...) = %v; want the command that audits it", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	cfg := Config{Host: "127.0.0.1", Port: port, Timeout: 5 * time.Second}
	_, err = Run(context.Background(), cfg)
	hint := Hint(err, cfg)
	if err == nil || strings.Contains(hint, "http://") || !strings.Contains(hint, fmt.Sprintf("--http-port %d", port)) {
		t.Errorf("audit of a plain port = %v, hint %q; want --http-port %d and no http://", err, hint, port)
	}
}
