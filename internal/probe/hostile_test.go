package probe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// hostileBound bounds what a hostile test server sends in all, so that a
// client that does not stop it cannot make it run forever.
const hostileBound = 64 << 20

// readRequest reads a request's header from c (the end of its header), so
// that the answer does not race the client's write.
func readRequest(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil || line == "\r\n" {
			return
		}
	}
}

// sendHeadersForever answers with a status line and then header fields
// of 1000 bytes each, without end (up to hostileBound).
func sendHeadersForever(c net.Conn) {
	readRequest(c)
	line := []byte("X-Pad: " + strings.Repeat("p", 1000) + "\r\n")
	c.Write([]byte("HTTP/1.1 200 OK\r\n"))
	for sent := 0; sent < hostileBound; sent += len(line) {
		if _, err := c.Write(line); err != nil {
			return
		}
	}
}

// sendEndlessLine answers with a status line and one header line that
// never ends (up to hostileBound).
func sendEndlessLine(c net.Conn) {
	readRequest(c)
	c.Write([]byte("HTTP/1.1 200 OK\r\nX-Pad: "))
	chunk := bytes.Repeat([]byte("p"), 16<<10)
	for sent := 0; sent < hostileBound; sent += len(chunk) {
		if _, err := c.Write(chunk); err != nil {
			return
		}
	}
}

// h2Server serves HTTP/2 over TLS on loopback with a certificate of a new
// lab CA, handing each connection, after the client's preface, to handle
// with a framer; it returns the URL and the CA's file.
func h2Server(t *testing.T, handle func(*http2.Framer)) (url, ca string) {
	t.Helper()
	authority, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := authority.Issue(lab.ECDSAP256, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{leaf.TLS}, NextProtos: []string{"h2"}}
	addr := labtest.ServeTCP(t, func(c net.Conn) {
		tc := tls.Server(c, cfg)
		defer tc.Close()
		preface := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(tc, preface); err != nil {
			return
		}
		fr := http2.NewFramer(tc, tc)
		if fr.WriteSettings() != nil {
			return
		}
		handle(fr)
	})
	return "https://" + addr + "/", caFile(t, authority)
}

// h2HeadersForever answers the first request with a HEADERS frame without
// END_HEADERS and then CONTINUATION frames of header fields without end
// (up to hostileBound).
func h2HeadersForever(fr *http2.Framer) {
	var stream uint32
	for stream == 0 {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if h, ok := f.(*http2.HeadersFrame); ok {
			stream = h.StreamID
		}
	}
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: buf.Bytes()}) != nil {
		return
	}
	for sent := 0; sent < hostileBound; {
		buf.Reset()
		for buf.Len() < 15<<10 {
			enc.WriteField(hpack.HeaderField{Name: "x-pad", Value: strings.Repeat("p", 1000), Sensitive: true})
		}
		if fr.WriteContinuation(stream, false, buf.Bytes()) != nil {
			return
		}
		sent += buf.Len()
	}
}

// TestHeaderLimit: a server that sends header fields without end, or one
// header line without end, is refused at the header limit (it used to
// fill gigabytes of memory), quickly and with an error that says so, over
// HTTP/1.1 and HTTP/2. HTTP/2's client ends a connection whose header
// block passes the limit with a PROTOCOL_ERROR (its own error for this is
// not exported), after reading not much more than the limit.
func TestHeaderLimit(t *testing.T) {
	h2URL, h2CA := h2Server(t, h2HeadersForever)
	tests := []struct {
		name  string
		cfg   Config
		limit int64
	}{
		{"headers forever", Config{URL: "http://" + labtest.ServeTCP(t, sendHeadersForever) + "/"}, transport.MaxHeaderBytes},
		{"endless line", Config{URL: "http://" + labtest.ServeTCP(t, sendEndlessLine) + "/"}, transport.MaxHeaderBytes},
		{"headers forever, 64 KiB", Config{URL: "http://" + labtest.ServeTCP(t, sendHeadersForever) + "/", MaxHeaderBytes: 64 << 10}, 64 << 10},
		{"HTTP/2 CONTINUATION forever", Config{URL: h2URL, Protocol: ProtoHTTP2, TLS: transport.TLS{CAFile: h2CA}}, transport.MaxHeaderBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			res, err := c.Do(ctx, Fresh)
			took := time.Since(start)
			var hl *transport.HeaderLimitError
			switch {
			case tt.cfg.Protocol == ProtoHTTP2:
				if err == nil || !strings.Contains(err.Error(), "PROTOCOL_ERROR") {
					t.Fatalf("Do = %v; want the connection ended with a PROTOCOL_ERROR", err)
				}
			case !errors.As(err, &hl) || hl.Limit != tt.limit:
				t.Fatalf("Do = %v; want a HeaderLimitError of %d bytes", err, tt.limit)
			}
			if took > 10*time.Second {
				t.Errorf("refused after %v; want it at the limit, well before the 20s timeout", took)
			}
			// What was read is the limit and a few buffers or frames more.
			if fin := res.Final(); fin == nil || fin.Status != 0 || fin.Bytes.ResponseRead > tt.limit+64<<10 {
				t.Errorf("final hop %+v; want no status and at most the limit read", fin)
			}
		})
	}
}
