package probe

import (
	"fmt"
	"net"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestHeaderSize: over HTTP/1.1 the header size is the bytes of the
// status line and fields as they came; over HTTP/2, which has no status
// line on the wire, it counts the one curl writes for its size_header,
// "HTTP/2 200 \r\n" (curl 7.88 printed 209 for the embedded server's
// 200 where httpslab printed 213 with "HTTP/2.0 200 OK").
func TestHeaderSize(t *testing.T) {
	const head = "HTTP/1.1 200 Fine\r\nContent-Length: 2\r\nX-Long-Header-Name: some value\r\n\r\n"
	addr := lab.ServeTCP(t, func(c net.Conn) {
		c.Read(make([]byte, 4096))
		c.Write([]byte(head + "ok"))
		c.Close()
	})
	tl := do(t, newClient(t, Config{URL: "http://" + addr + "/"}), Fresh)
	if tl.Bytes.HeaderSize != int64(len(head)) {
		t.Errorf("HTTP/1.1 header size = %d; want %d, the bytes sent", tl.Bytes.HeaderSize, len(head))
	}

	srv := lab.StartTestServer(t, lab.Config{NoHTTP3: true})
	tl = do(t, newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: ProtoHTTP2, TLS: transport.TLS{CAFile: caFile(t, srv.CA)}}), Fresh)
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
