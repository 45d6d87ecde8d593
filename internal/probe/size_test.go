package probe

import (
	"fmt"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestHeaderSize: over HTTP/1.1 the header size is the bytes of the
// status line and fields as they came (a chunked response's
// Transfer-Encoding included, which net/http takes out of the header);
// over HTTP/2, which has no status line on the wire, it counts the one
// curl writes for its size_header, "HTTP/2 200 \r\n" (curl 7.88 prints
// 209 for the embedded server's 200, and so does httpslab).
func TestHeaderSize(t *testing.T) {
	for _, tt := range []struct{ head, body string }{
		{"HTTP/1.1 200 Fine\r\nContent-Length: 2\r\nX-Long-Header-Name: some value\r\n\r\n", "ok"},
		// net/http takes Transfer-Encoding out of the header; curl counts it.
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n", "2\r\nok\r\n0\r\n\r\n"},
	} {
		srv := labtest.NewMisbehaving(t, labtest.Reply(tt.head+tt.body))
		tl := do(t, newClient(t, Config{URL: srv.URL()}), transport.Fresh)
		if tl.Bytes.HeaderSize != int64(len(tt.head)) || tl.Bytes.BodySize != 2 {
			t.Errorf("HTTP/1.1 header size = %d, body %d B; want %d, the bytes sent, and 2 B\n%s", tl.Bytes.HeaderSize, tl.Bytes.BodySize, len(tt.head), tt.head)
		}
	}

	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	tl := do(t, newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: transport.HTTP2, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}}), transport.Fresh)
	want := len("HTTP/2 200 \r\n") + len("\r\n")
	for k, vs := range tl.Header {
		for _, v := range vs {
			want += len(fmt.Sprintf("%s: %s\r\n", k, v))
		}
	}
	if tl.Proto != "HTTP/2.0" || tl.Bytes.HeaderSize != int64(want) {
		t.Errorf("%s header size = %d; want %d, with curl's status line", tl.Proto, tl.Bytes.HeaderSize, want)
	}
}
