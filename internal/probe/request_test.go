package probe

import (
	"bufio"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

func TestRequestBodyAndHost(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	ca := caFile(t, srv.CA)
	body := []byte(strings.Repeat("x", 1000))
	for _, proto := range []transport.Protocol{transport.HTTP1, transport.HTTP2, transport.HTTP3} {
		t.Run(proto.Token(), func(t *testing.T) {
			c := newClient(t, Config{URL: srv.HTTPSURL + "/headers", Protocol: proto, Body: body,
				Header: http.Header{"Host": {"httpslab.test"}}, TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}})
			tl := do(t, c, transport.Fresh)
			if tl.Method != http.MethodPost || tl.Status != 200 {
				t.Fatalf("got %s %d; want POST 200", tl.Method, tl.Status)
			}
			if got := tl.Bytes.RequestBodySize; got != int64(len(body)) {
				t.Errorf("RequestBodySize = %d; want %d", got, len(body))
			}
			// The embedded server reads the whole body before it
			// answers, on every protocol: all of it is on the wire.
			if tl.Bytes.RequestWritten < int64(len(body)) {
				t.Errorf("request bytes on the wire %d; want at least the %d B body", tl.Bytes.RequestWritten, len(body))
			}
			if got := tl.RequestHeader["Host"]; len(got) != 1 || got[0] != "httpslab.test" {
				t.Errorf("RequestHeader[Host] = %q; want the -H value httpslab.test", got)
			}
		})
	}
}

// TestNewConnectionBytes checks that on a new HTTP/2 connection every
// byte after the handshake, the preface and SETTINGS included, is counted
// as request or response bytes.
func TestNewConnectionBytes(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	c := newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: transport.HTTP2, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	tl := do(t, c, transport.Fresh)
	total := c.live.tcp.Counts()
	if got := tl.Bytes.HandshakeRead + tl.Bytes.ResponseRead; got != total.Read {
		t.Errorf("handshake + response bytes read = %d; want all %d read on the connection", got, total.Read)
	}
	// The client may still acknowledge the server's SETTINGS (9 B frame
	// in a 22 B TLS record) after the response.
	if got := tl.Bytes.HandshakeWritten + tl.Bytes.RequestWritten; got < total.Written-31 || got > total.Written {
		t.Errorf("handshake + request bytes written = %d; want the %d written on the connection, less an ACK at most", got, total.Written)
	}
}

func TestReuseForgetsClosedConnections(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	// With Connection: close every request in Reuse mode redials.
	c := newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: transport.HTTP1, Header: http.Header{"Connection": {"close"}},
		TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	for i := range 5 {
		if tl := do(t, c, transport.KeepAlive); tl.Reused {
			t.Fatalf("request %d reused a connection the server closed", i)
		}
	}
	c.mu.Lock()
	n := len(c.conns)
	c.mu.Unlock()
	if n != 1 {
		t.Errorf("after 5 redials the client tracks %d connections; want 1, the open one", n)
	}
}

// TestURLCredentials: user:password in the URL goes out as Basic auth,
// as curl sends it; a given Authorization header wins.
func TestURLCredentials(t *testing.T) {
	got := make(chan string, 2)
	addr := labtest.ServeTCP(t, func(c net.Conn) {
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			got <- err.Error()
		} else {
			got <- req.Header.Get("Authorization")
		}
		c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
		c.Close()
	})
	for _, tt := range []struct {
		header http.Header
		want   string
	}{
		{nil, "Basic " + base64.StdEncoding.EncodeToString([]byte("user:p@w"))},
		{http.Header{"Authorization": {"Bearer t"}}, "Bearer t"},
	} {
		do(t, newClient(t, Config{URL: "http://user:p%40w@" + addr + "/", Header: tt.header}), transport.Fresh)
		if a := <-got; a != tt.want {
			t.Errorf("Authorization = %q; want %q", a, tt.want)
		}
	}
}

// TestBodySentSize: RequestBodySize counts the body bytes the client
// really sent. The embedded server reads an upload in full before it
// answers (all of it counts); a server that answers an HTTP/2 upload
// without reading it (a handler that ignores the body) stops it within
// the flow-control window (or before any of it went, as the answer may
// come first), and only what went counts, not the 8 MiB.
func TestBodySentSize(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	ca := caFile(t, srv.CA)
	early := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	}))
	early.EnableHTTP2 = true
	early.StartTLS()
	t.Cleanup(early.Close)
	for _, tt := range []struct {
		proto transport.Protocol
		url   string
		tls   transport.TLS
		size  int
		full  bool
	}{
		{transport.HTTP1, srv.HTTPSURL + "/status/200", transport.TLS{Trust: transport.Trust{CAFile: ca}}, 100 << 10, true},
		{transport.HTTP2, srv.HTTPSURL + "/status/200", transport.TLS{Trust: transport.Trust{CAFile: ca}}, 8 << 20, true},
		{transport.HTTP2, early.URL + "/", transport.TLS{Trust: transport.Trust{Insecure: true}}, 8 << 20, false},
	} {
		c := newClient(t, Config{URL: tt.url, Protocol: tt.proto, Body: make([]byte, tt.size), TLS: tt.tls})
		tl := do(t, c, transport.Fresh)
		got := tl.Bytes.RequestBodySize
		if (tt.full && got != int64(tt.size)) || (!tt.full && (got < 0 || got >= int64(tt.size))) {
			t.Errorf("%s %s: RequestBodySize = %d of a %d B body; want all: %v", tt.proto, tt.url, got, tt.size, tt.full)
		}
		if cl := tl.RequestHeader["Content-Length"]; len(cl) != 1 || cl[0] != strconv.Itoa(tt.size) {
			t.Errorf("%s: recorded Content-Length %q; want the body's %d", tt.proto, cl, tt.size)
		}
	}
}

// TestSeeOtherMethod: a 303 turns the next request into a GET, but a
// HEAD stays a HEAD, as curl -I -L does.
func TestSeeOtherMethod(t *testing.T) {
	methods := make(chan string, 8)
	addr := labtest.ServeTCP(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			methods <- req.Method + " " + req.URL.Path
			if req.URL.Path == "/first" {
				c.Write([]byte("HTTP/1.1 303 See Other\r\nLocation: /next\r\nContent-Length: 0\r\n\r\n"))
			} else {
				c.Write([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
			}
		}
	})
	for _, tt := range []struct {
		method string
		body   []byte
		want   string
	}{{"HEAD", nil, "HEAD /next"}, {"", []byte("x=1"), "GET /next"}} {
		do(t, newClient(t, Config{URL: "http://" + addr + "/first", Method: tt.method, Body: tt.body, FollowRedirects: true}), transport.Fresh)
		if first, next := <-methods, <-methods; next != tt.want {
			t.Errorf("%s, then %s; want %s after the 303", first, next, tt.want)
		}
	}
}
