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

// sendInformational answers with n 1xx responses (up to hostileBound
// bytes) and then, when final, a 200.
func sendInformational(n int, final bool) func(net.Conn) {
	return func(c net.Conn) {
		readRequest(c)
		info := []byte("HTTP/1.1 102 Processing\r\n\r\n")
		for i := 0; i < n && i*len(info) < hostileBound; i++ {
			if _, err := c.Write(info); err != nil {
				return
			}
		}
		if final {
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
		}
	}
}

// h2InformationalForever answers the first request with 1xx HEADERS
// frames without end (up to hostileBound bytes).
func h2InformationalForever(fr *http2.Framer) {
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
	hpack.NewEncoder(&buf).WriteField(hpack.HeaderField{Name: ":status", Value: "102"})
	for sent := 0; sent < hostileBound; sent += buf.Len() {
		if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: buf.Bytes(), EndHeaders: true}) != nil {
			return
		}
	}
}

// TestInformationalBound: a server that loops 1xx responses fails the
// request at transport.MaxInformational of them, at once (probe used to
// keep every one, hundreds of megabytes, and run past its timeout); the
// first few are kept and all are counted. Seven and a 200 are a success.
func TestInformationalBound(t *testing.T) {
	h2URL, h2CA := h2Server(t, h2InformationalForever)
	tests := []struct {
		name      string
		cfg       Config
		wantCount int
		wantErr   bool
	}{
		{"1xx forever", Config{URL: "http://" + lab.ServeTCP(t, sendInformational(1<<30, false)) + "/"}, transport.MaxInformational + 1, true},
		{"HTTP/2 1xx forever", Config{URL: h2URL, Protocol: ProtoHTTP2, TLS: transport.TLS{CAFile: h2CA}}, transport.MaxInformational + 1, true},
		{"seven, then 200", Config{URL: "http://" + lab.ServeTCP(t, sendInformational(7, true)) + "/"}, 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			res, err := c.Do(ctx, Fresh)
			if errors.Is(err, transport.ErrInformational) != tt.wantErr {
				t.Fatalf("Do = %v; want ErrInformational %v", err, tt.wantErr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v; want the loop cut at its bound, at once", took)
			}
			fin := res.Final()
			if fin.InformationalCount != tt.wantCount || len(fin.Informational) != KeptInformational {
				t.Errorf("%d 1xx counted, %d kept; want %d and %d", fin.InformationalCount, len(fin.Informational), tt.wantCount, KeptInformational)
			}
			if wantStatus := map[bool]int{true: 0, false: 200}[tt.wantErr]; fin.Status != wantStatus {
				t.Errorf("status %d; want %d", fin.Status, wantStatus)
			}
		})
	}
}
