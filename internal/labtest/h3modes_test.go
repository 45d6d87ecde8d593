package labtest

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
)

// h3Get requests s's root over HTTP/3 with quic-go's client, trusting
// s's CA and accepting 1 MiB of response header, with body sent when
// it is not empty.
func h3Get(t *testing.T, s *Misbehaving, body string) (*http.Response, error) {
	t.Helper()
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}, MaxResponseHeaderBytes: 1 << 20}
	t.Cleanup(func() { tr.Close() })
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	if body == "" {
		return c.Get(s.URL())
	}
	return c.Post(s.URL(), "application/octet-stream", strings.NewReader(body))
}

// TestH3Modes runs quic-go's client against each HTTP/3 mode: the header
// flood and the 1xx loop are refused by the client's own bounds, and the
// tiny window's server reads a body of many windows whole. The test's
// cleanup waits for every handler to return, so a mode that kept
// writing after its client left would hang it.
func TestH3Modes(t *testing.T) {
	t.Run("header flood", func(t *testing.T) {
		_, err := h3Get(t, NewMisbehaving(t, H3HeaderFlood), "")
		if err == nil || !strings.Contains(err.Error(), "HEADERS frame too large") {
			t.Errorf("GET = %v; want the HEADERS frame refused", err)
		}
	})
	t.Run("1xx forever", func(t *testing.T) {
		_, err := h3Get(t, NewMisbehaving(t, H3InformationalForever), "")
		if err == nil || !strings.Contains(err.Error(), "too many 1xx") {
			t.Errorf("GET = %v; want too many 1xx responses", err)
		}
	})
	t.Run("tiny window", func(t *testing.T) {
		s := NewMisbehaving(t, H3TinyWindow)
		resp, err := h3Get(t, s, strings.Repeat("x", 50*h3TinyWindow))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := "read 50000 bytes\n"; string(got) != want {
			t.Errorf("POST of 50,000 bytes: %q; want %q", got, want)
		}
		if s.Accepted() != 1 || s.Replies() != 1 {
			t.Errorf("Accepted() = %d, Replies() = %d; want 1 and 1", s.Accepted(), s.Replies())
		}
	})
}
