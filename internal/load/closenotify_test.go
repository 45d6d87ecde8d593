package load

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestAnnouncedCloseSendsNoAlert: when a response announces that the
// server closes the connection (Connection: close, as every response of
// --conn new does), the client closes its TCP connection without a
// close_notify of its own. The server, after its response and its own
// close_notify, reads the raw TCP stream to its end: nothing more may
// arrive.
func TestAnnouncedCloseSendsNoAlert(t *testing.T) {
	ca, leaf := labtest.LoopbackLeaf(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// after is, per connection, the bytes the client sent once the server
	// had answered every request it read.
	after := make(chan int, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				ts := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{leaf.TLS}})
				req, err := http.ReadRequest(bufio.NewReader(ts))
				if err != nil || !req.Close {
					t.Errorf("request: %v; want one that asks to close (close=%v)", err, err == nil && req.Close)
					after <- -1
					return
				}
				ts.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
				ts.CloseWrite() // the server's close_notify
				n, _ := io.Copy(io.Discard, c)
				after <- int(n)
			}(c)
		}
	}()
	url := "https://" + ln.Addr().String() + "/"
	res := mustRun(t, Config{Targets: []Target{{URL: url}}, Conns: 1, Mode: transport.Fresh, Requests: 3,
		TLS: clientTLS(t, ca.CertPEM)})
	if res.Handshakes != 3 {
		t.Fatalf("%d handshakes; want 3", res.Handshakes)
	}
	for i := 0; i < 3; i++ {
		if n := <-after; n != 0 {
			t.Errorf("connection %d: the client sent %d bytes after the server's announced close; want 0 (no close_notify)", i, n)
		}
	}
}
