package transport

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/usage"
)

// TestCurlErrors: every option Curl reads refuses a bad value with a
// usage error that names it.
func TestCurlErrors(t *testing.T) {
	for _, tt := range []struct {
		c       Curl
		read    func(Curl) error
		wantErr string
	}{
		{Curl{CurlTLS: CurlTLS{CAFile: "/nonexistent/ca.pem"}}, func(c Curl) error { _, err := c.TLS(); return err }, "--cacert: stat /nonexistent/ca.pem"},
		{Curl{CurlTLS: CurlTLS{Max: "1.4"}}, func(c Curl) error { _, err := c.TLS(); return err }, "1.4"},
		{Curl{CurlRoutes: CurlRoutes{IPv4: true, IPv6: true}}, func(c Curl) error { _, err := c.Routes(); return err }, "-4"},
		{Curl{HTTP11: true, HTTP3: true}, func(c Curl) error { _, err := c.Protocol(); return err }, "choose one of --http1.1, --http2 and --http3"},
		{Curl{MaxTime: "soon"}, func(c Curl) error { _, err := c.Timeout(time.Second); return err }, `--max-time "soon": want seconds`},
		{Curl{MaxTime: "-1"}, func(c Curl) error { _, err := c.Timeout(time.Second); return err }, `--max-time "-1"`},
		{Curl{Headers: []string{"no colon"}}, func(c Curl) error { _, err := c.Header(); return err }, "no colon"},
		{Curl{Data: []string{"@/nonexistent/body"}}, func(c Curl) error { _, err := c.Body(strings.NewReader("")); return err }, "-d @/nonexistent/body"},
	} {
		err := tt.read(tt.c)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error)) {
			t.Errorf("%+v: error %v; want a usage error containing %q", tt.c, err, tt.wantErr)
		}
	}
}

func TestCurlValues(t *testing.T) {
	c := Curl{MaxTime: "2.5", Data: []string{"a=1", "@-"}, DataBinary: []string{"x\ny"}, HTTP2: true}
	if d, err := c.Timeout(time.Minute); err != nil || d != 2500*time.Millisecond {
		t.Errorf("Timeout(--max-time 2.5) = %v, %v; want 2.5s", d, err)
	}
	if d, _ := (Curl{}).Timeout(time.Minute); d != time.Minute {
		t.Errorf("Timeout() without --max-time = %v; want the default 1m", d)
	}
	if b, err := c.Body(strings.NewReader("b=2\r\n")); err != nil || string(b) != "a=1&b=2&x\ny" {
		t.Errorf("Body = %q, %v; want %q", b, err, "a=1&b=2&x\ny")
	}
	if p, err := c.Protocol(); err != nil || p != HTTP2 {
		t.Errorf("Protocol(--http2) = %v, %v; want HTTP/2", p, err)
	}
}
