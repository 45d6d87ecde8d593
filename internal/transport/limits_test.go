package transport

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestHeaderReader: the limit holds for each response's header and not
// for its body; a header over it is a HeaderLimitError.
func TestHeaderReader(t *testing.T) {
	pad := "X-Pad: " + strings.Repeat("p", 1000) + "\r\n"
	body := strings.Repeat("b", 8<<10)
	ok := "HTTP/1.1 200 OK\r\n" + strings.Repeat(pad, 3) + "Content-Length: 8192\r\n\r\n" + body
	tests := []struct {
		name    string
		stream  string
		limit   int64
		wantErr bool
	}{
		{"under the limit, body over it", ok, 4 << 10, false},
		{"two responses, each under the limit", "HTTP/1.1 103 Early Hints\r\n" + strings.Repeat(pad, 3) + "\r\n" + ok, 4 << 10, false},
		{"header over the limit", "HTTP/1.1 200 OK\r\n" + strings.Repeat(pad, 5) + "\r\n", 4 << 10, true},
		{"one endless line", "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("p", 1<<20), 64 << 10, true},
	}
	for _, tt := range tests {
		h := NewHeaderReader(strings.NewReader(tt.stream), tt.limit)
		resp, err := h.ReadResponse(nil)
		for err == nil && resp.StatusCode < 200 {
			resp, err = h.ReadResponse(nil)
		}
		var hl *HeaderLimitError
		if tt.wantErr {
			if !errors.As(err, &hl) || hl.Limit != tt.limit {
				t.Errorf("%s: ReadResponse = %v; want a HeaderLimitError of %d", tt.name, err, tt.limit)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: ReadResponse = %v; want the response", tt.name, err)
			continue
		}
		if b, err := io.ReadAll(resp.Body); err != nil || string(b) != body {
			t.Errorf("%s: body of %d bytes, %v; want %d bytes", tt.name, len(b), err, len(body))
		}
	}
}

func TestAsHeaderLimit(t *testing.T) {
	h2 := errors.New("http2: response header list larger than advertised limit")
	if err := AsHeaderLimit(h2, 0); !IsHeaderLimit(err) || !errors.Is(err, h2) {
		t.Errorf("AsHeaderLimit(%v) = %v; want a HeaderLimitError wrapping it", h2, err)
	}
	other := errors.New("connection reset by peer")
	if err := AsHeaderLimit(other, 0); err != other {
		t.Errorf("AsHeaderLimit(%v) = %v; want it unchanged", other, err)
	}
}

// TestHeaderReaderSlow: a header cut off by a read deadline is a
// SlowError counting what arrived (net/http called the part a malformed
// response), and still a timeout.
func TestHeaderReaderSlow(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	go server.Write([]byte("HTTP/"))
	client.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err := NewHeaderReader(client, 0).ReadResponse(nil)
	var slow *SlowError
	if !errors.As(err, &slow) || slow.Read != 5 || !isTimeout(err) {
		t.Fatalf("ReadResponse = %v; want a SlowError after 5 bytes, a timeout", err)
	}
	if !strings.Contains(err.Error(), "the server is too slow: 5 bytes of the response header in") {
		t.Errorf("error %q; want it to say the server is too slow", err)
	}
}
