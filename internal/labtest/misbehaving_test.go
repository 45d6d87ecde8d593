package labtest

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// get sends one GET to s with a net/http client that trusts s's CA,
// reads at most 64 KiB of response header (1xx responses included) and
// gives up after timeout.
func get(t *testing.T, s *Misbehaving, timeout time.Duration) (*http.Response, string, error) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true, MaxResponseHeaderBytes: 64 << 10}
	if s.CA != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: s.CA.Pool()}
	}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: timeout}
	resp, err := c.Get(s.URL())
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// TestModesAgainstNetHTTP runs net/http's client against each mode: each
// fails the way the mode means it to (net/http bounds the header bytes
// of the final and the 1xx responses together), within a few seconds.
func TestModesAgainstNetHTTP(t *testing.T) {
	for _, tt := range []struct {
		mode Mode
		want string // in the error (one of the texts between |); "" for a 200 with body "ok"
	}{
		{Silent, "Client.Timeout exceeded"},
		// A close with the request unread may reach the client as a reset.
		{CloseOnAccept, "EOF|connection reset|server closed idle connection"},
		{CloseAfterRequest, "EOF|connection reset"},
		{CloseMidBody, "unexpected EOF"},
		{HeadersForever, "server response headers exceeded"},
		{EndlessHeaderLine, "server response headers exceeded"},
		{InformationalForever, "server response headers exceeded"},
		{Trickle("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", time.Second), "Client.Timeout exceeded"},
		{TLS(Silent), "Client.Timeout exceeded"},
		{TLS(Reply(okResponse)), ""},
		{HostileCert, ""},
		{CloseMidPipeline(1), ""},
		{Answer(okResponse), ""},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			t.Parallel() // each waits on its own server
			s := NewMisbehaving(t, tt.mode)
			start := time.Now()
			resp, body, err := get(t, s, 1500*time.Millisecond)
			if tt.want == "" {
				if err != nil || resp.StatusCode != 200 || body != "ok" {
					t.Fatalf("GET %s = %v, %q; want 200 ok", s.URL(), err, body)
				}
			} else if err == nil || !containsAny(err.Error(), strings.Split(tt.want, "|")) {
				t.Fatalf("GET %s = %v; want an error with %q", s.URL(), err, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("GET took %v; want a few seconds at most", d)
			}
			if s.Accepted() != 1 {
				t.Errorf("Accepted() = %d; want 1", s.Accepted())
			}
		})
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestHostileCert checks that the certificate carries the control
// characters it promises, as a TLS client receives them.
func TestHostileCert(t *testing.T) {
	s := NewMisbehaving(t, HostileCert)
	c, err := tls.Dial("tcp", s.Addr, &tls.Config{RootCAs: s.CA.Pool(), ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	leaf := c.ConnectionState().PeerCertificates[0]
	if leaf.Subject.CommonName != HostileSubject || leaf.Subject.Organization[0] != HostileSubject {
		t.Errorf("subject %q; want the hostile common name and organisation", leaf.Subject)
	}
}

// TestCloseMidPipeline pipelines five requests: three are answered, with
// responses that keep the connection alive, and then the server closes.
func TestCloseMidPipeline(t *testing.T) {
	s := NewMisbehaving(t, CloseMidPipeline(3))
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 5)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var answered int
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !isReset(err) {
				t.Fatalf("after %d responses: %v; want the connection closed", answered, err)
			}
			break
		}
		io.Copy(io.Discard, resp.Body)
		if resp.Close {
			t.Errorf("response %d closes the connection; want keep-alive", answered+1)
		}
		answered++
	}
	if answered != 3 || s.Replies() != 3 {
		t.Errorf("%d responses read, %d written; want 3 of 5", answered, s.Replies())
	}
}

// isReset reports a connection reset by the peer: closing with unread
// pipelined requests makes the kernel send RST.
func isReset(err error) bool { return strings.Contains(err.Error(), "connection reset") }

// TestTrickle reads a trickled response with a deadline of its own: it
// arrives one byte at a time, whole, and not faster than its interval.
func TestTrickle(t *testing.T) {
	const raw = "HTTP/1.1 204 No Content\r\n\r\n"
	s := NewMisbehaving(t, Trickle(raw, 5*time.Millisecond))
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	got := make([]byte, len(raw))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != raw {
		t.Fatalf("read %q, %v; want %q", got, err, raw)
	}
	if d, want := time.Since(start), time.Duration(len(raw)-1)*5*time.Millisecond; d < want {
		t.Errorf("whole response after %v; want at least %v", d, want)
	}
}

// TestBinaryDoesNotLinkTesting: the httpslab binary does not import
// testing (test support lives here, imported by tests only).
func TestBinaryDoesNotLinkTesting(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-deps", "github.com/httpslab/httpslab/cmd/httpslab").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "testing" || strings.HasSuffix(pkg, "/labtest") {
			t.Errorf("cmd/httpslab depends on %s", pkg)
		}
	}
}

// TestPageCSSImports checks the Handler mode through PageCSSImports: the
// stylesheets it serves, two requests kept alive on one connection, and
// the end of its chain.
func TestPageCSSImports(t *testing.T) {
	s := NewMisbehaving(t, PageCSSImports)
	for _, tt := range []struct{ path, want string }{
		{"self.css", `@import "/self.css";`},
		{"chain/7.css", `@import "/chain/8.css";`},
		{"chain/1000.css", "404 page not found"},
	} {
		resp, err := http.Get(s.URL() + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), tt.want) {
			t.Errorf("GET /%s = %q; want %q", tt.path, body, tt.want)
		}
	}
	if got := s.Accepted(); got != 1 {
		t.Errorf("Accepted() = %d; want 1 (the connection kept alive)", got)
	}
}
