package labtest

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// h3Server is what an HTTP/3 mode serves: quic-go's HTTP/3 server with
// handler, on a QUIC configuration of its own (nil: quic-go's defaults).
type h3Server struct {
	handler http.Handler
	quic    *quic.Config
}

// h3Mode is an HTTP/3 mode serving h, over QUIC with qc, with a
// certificate of the server's CA.
func h3Mode(name string, qc *quic.Config, h http.HandlerFunc) Mode {
	return Mode{name: name, tls: true, alpn: []string{http3.NextProtoH3}, h3: &h3Server{handler: h, quic: qc}}
}

// serve starts the HTTP/3 server for s on a loopback UDP port with cfg,
// counting its connections in Accepted and its handled requests in
// Replies, and closes it when the test ends; it returns the port's
// address.
func (h *h3Server) serve(t testing.TB, s *Misbehaving, cfg *tls.Config) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var handlers sync.WaitGroup
	srv := &http3.Server{
		TLSConfig:  cfg,
		QUICConfig: h.quic,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			handlers.Add(1)
			defer handlers.Done()
			s.replies.Add(1)
			h.handler.ServeHTTP(w, r)
		}),
		ConnContext: func(ctx context.Context, _ *quic.Conn) context.Context {
			s.accepted.Add(1)
			return ctx
		},
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(pc) }()
	t.Cleanup(func() {
		srv.Close()
		pc.Close()
		if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			t.Errorf("the HTTP/3 server: %v", err)
		}
		handlers.Wait() // closing the connections ends the requests' contexts
	})
	return pc.LocalAddr().String()
}

// h3HeaderFlood is the size of the H3HeaderFlood mode's response header:
// twice the 1 MiB a client accepts by default.
const h3HeaderFlood = 2 << 20

// h3TinyWindow is the flow-control window H3TinyWindow grants, on each
// stream and on the connection: a few hundred bytes under one packet.
const h3TinyWindow = 1000

// Modes of an HTTP/3 server (quic-go's, over UDP on loopback) that sends
// what a client must bound, or allows it little.
var (
	// H3HeaderFlood answers every request with a 200 whose header block
	// (QPACK, in one HEADERS frame) holds 2 MiB of header fields.
	H3HeaderFlood = h3Mode("HTTP/3 header flood", nil, func(w http.ResponseWriter, _ *http.Request) {
		pad := strings.Repeat("a", 1000)
		for i := range h3HeaderFlood / 1024 {
			w.Header().Set(fmt.Sprintf("X-Pad-%d", i), pad)
		}
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "ok")
	})
	// H3InformationalForever answers every request with 102 Processing
	// responses without end (up to endlessBytes of them or endlessTime),
	// never a final one.
	H3InformationalForever = h3Mode("HTTP/3 1xx forever", nil, func(w http.ResponseWriter, r *http.Request) {
		deadline := time.Now().Add(endlessTime)
		// quic-go's WriteHeader writes a 1xx at once and keeps no error:
		// the loop ends when the client resets the stream (the request's
		// context ends) or at its bounds.
		for i := 0; i < endlessBytes/16 && r.Context().Err() == nil && time.Now().Before(deadline); i++ {
			w.WriteHeader(http.StatusProcessing)
		}
	})
	// H3TinyWindow grants a flow-control window of 1000 bytes to each
	// stream and to the connection, never more, and answers each request
	// with the size of the body it read: a client that sends past the
	// window is closed with FLOW_CONTROL_ERROR by the server's QUIC.
	H3TinyWindow = h3Mode("HTTP/3 tiny receive window", &quic.Config{
		InitialStreamReceiveWindow: h3TinyWindow, MaxStreamReceiveWindow: h3TinyWindow,
		InitialConnectionReceiveWindow: h3TinyWindow, MaxConnectionReceiveWindow: h3TinyWindow,
	}, func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxRequest<<4))
		if err != nil {
			http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "read %d bytes\n", n)
	})
)
