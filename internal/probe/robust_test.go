package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestConfigRejects covers command lines that used to reach the network
// and fail there (a port out of range dialled port 0 or failed in the
// dialer; an HTTP/3 probe capped at TLS 1.2 failed in the QUIC handshake).
func TestConfigRejects(t *testing.T) {
	tests := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{URL: "https://127.0.0.1:99999/"}, `port "99999": want 1 to 65535`},
		{Config{URL: "https://127.0.0.1:0/"}, `port "0": want 1 to 65535`},
		{Config{URL: "http://[::1]:65536/"}, `port "65536": want 1 to 65535`},
		{Config{URL: "https://:443/"}, "no host"},
		{Config{URL: "ftp://127.0.0.1/"}, `scheme "ftp" is not http or https`},
		{Config{URL: "https://127.0.0.1/", Method: "GE T"}, `method "GE T" is not an HTTP token`},
		{Config{URL: "https://127.0.0.1/", Method: "GET\r\nX: y"}, "is not an HTTP token"},
		{Config{URL: "https://127.0.0.1/", Header: http.Header{"X-A": {"a\r\nInjected: b"}}}, "control characters (CR, LF) are not allowed"},
		{Config{URL: "https://127.0.0.1/", Header: http.Header{"X A": {"b"}}}, `header name "X A": want a token`},
		{Config{URL: "https://127.0.0.1/", Protocol: transport.HTTP3, TLS: transport.TLS{Max: tls.VersionTLS12}}, "HTTP/3 runs on TLS 1.3 only"},
	}
	for _, tt := range tests {
		_, err := New(tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("New(%q, method %q, max %x) = %v; want an error containing %q", tt.cfg.URL, tt.cfg.Method, tt.cfg.TLS.Max, err, tt.wantErr)
		}
	}
	for _, u := range []string{"https://127.0.0.1:1/", "https://127.0.0.1:65535/", "https://[::1]/", "http://user:pw@127.0.0.1/#f"} {
		if c, err := New(Config{URL: u, Method: "PATCH"}); err != nil {
			t.Errorf("New(%q) = %v; want no error", u, err)
		} else {
			c.Close()
		}
	}
}

func TestRedirectLimit(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	ca := caFile(t, srv.CA)
	tests := []struct {
		max       int
		wantHops  int
		wantLimit bool
	}{
		{0, 4, false}, // the default, 50
		{3, 4, false},
		{2, 3, true},
		{1, 2, true},
		{NoRedirects, 1, true}, // curl -L --max-redirs 0
		{-7, 1, true},
	}
	for _, tt := range tests {
		c := newClient(t, Config{URL: srv.HTTPSURL + "/redirect/3", FollowRedirects: true, MaxRedirects: tt.max, TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := c.Do(ctx, transport.Fresh)
		cancel()
		if got := errors.Is(err, ErrRedirectLimit); got != tt.wantLimit {
			t.Errorf("MaxRedirects %d: error %v; want ErrRedirectLimit %v", tt.max, err, tt.wantLimit)
		}
		if res == nil {
			t.Errorf("MaxRedirects %d: no result; want %d hops", tt.max, tt.wantHops)
		} else if len(res.Hops) != tt.wantHops {
			t.Errorf("MaxRedirects %d: %d hops; want %d", tt.max, len(res.Hops), tt.wantHops)
		}
	}
}

// TestRedirectToOtherScheme: a Location with a scheme probe cannot speak
// is an error naming it; nothing is dialled for it (it used to dial port 0).
func TestRedirectToOtherScheme(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "ftp://127.0.0.1/file", http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, Config{URL: srv.URL + "/", FollowRedirects: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Do(ctx, transport.Fresh)
	if err == nil || !strings.Contains(err.Error(), `redirect to ftp://127.0.0.1/file: scheme "ftp" is not http or https`) {
		t.Fatalf("Do = %v; want the redirect's scheme refused", err)
	}
	if res == nil {
		t.Fatal("Do returned no result; want the one 302 hop")
	}
	if len(res.Hops) != 1 {
		t.Fatalf("%d hops; want the one 302", len(res.Hops))
	}
	if res.Hops[0].Status != http.StatusFound || hits.Load() != 1 {
		t.Errorf("first status %d, %d requests; want the one 302", res.Hops[0].Status, hits.Load())
	}
}

// TestInternationalizedHost: a Unicode host name is sent in its ASCII
// form, so SNI and the certificate check match a certificate for the
// A-label, over every protocol, with --resolve given either way.
func TestInternationalizedHost(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{Hosts: []string{"xn--bcher-kva.test"}})
	ca := caFile(t, srv.CA)
	p := port(t, srv.HTTPSURL)
	for _, proto := range []transport.Protocol{transport.HTTP1, transport.HTTP2, transport.HTTP3} {
		for _, resolve := range []string{"bücher.test", "xn--bcher-kva.test", "BÜCHER.test"} {
			c := newClient(t, Config{URL: "https://bücher.test:" + p + "/", Protocol: proto,
				Routes: routes(t, []string{resolve + ":" + p + ":127.0.0.1"}, nil), TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}})
			tl := do(t, c, transport.Fresh)
			if tl.Status != 200 || tl.URL != "https://xn--bcher-kva.test:"+p+"/" {
				t.Errorf("%s, --resolve %s: status %d, URL %s; want 200 from the A-label URL", proto, resolve, tl.Status, tl.URL)
			}
		}
	}
	if _, err := New(Config{URL: "https://bad\u00adname\u200d.test/"}); err == nil {
		t.Errorf("New with an invalid internationalized name: no error")
	}
}
