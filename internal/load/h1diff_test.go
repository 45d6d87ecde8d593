package load

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"
)

// stdResponse is what net/http makes of a response: the first final
// response after any 1xx (101 counts as final), its body read whole.
type stdResponse struct {
	status int
	body   int64
	close  bool
}

// readStd reads data as net/http's ReadResponse does, skipping interim
// responses as the load client does; ok is false when net/http refuses
// the response or its body.
func readStd(data []byte, head bool) (stdResponse, bool) {
	br := bufio.NewReader(bytes.NewReader(data))
	req := &http.Request{Method: http.MethodGet}
	if head {
		req.Method = http.MethodHead
	}
	for range 100 {
		resp, err := http.ReadResponse(br, req)
		if err != nil {
			return stdResponse{}, false
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return stdResponse{}, false
		}
		if resp.StatusCode >= 200 || resp.StatusCode == 101 {
			return stdResponse{status: resp.StatusCode, body: n, close: resp.Close}, true
		}
	}
	return stdResponse{}, false
}

// FuzzReadResponseDiff compares the load client's HTTP/1.1 response
// parser, hand-written so that it allocates nothing per response, with
// net/http's ReadResponse: whenever both read a response, they must agree
// on its status, its body's length (after chunked decoding) and whether
// the connection closes after it. Either may refuse what the other reads:
// the load client refuses, for instance, two different Content-Length
// values that net/http takes as a list, and reads header names net/http
// refuses as invalid.
func FuzzReadResponseDiff(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n2;ext=1\r\nhi\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\n\r\nuntil the end",
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
		"HTTP/1.1 404 Not Found\nContent-Length: 2\nConnection: close\n\nno",
		"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length:  007\r\n\r\n1234567",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		p := newH1Reader(4096, 64<<10)
		p.br.Reset(bytes.NewReader(data))
		got, err := p.read(head)
		want, ok := readStd(data, head)
		if err != nil || !ok {
			return
		}
		if got.status != want.status || got.body != want.body || got.status != 101 && got.close != want.close {
			t.Fatalf("read(%q, head %v) = status %d, body %d, close %v; net/http: status %d, body %d, close %v",
				data, head, got.status, got.body, got.close, want.status, want.body, want.close)
		}
	})
}
