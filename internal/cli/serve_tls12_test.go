package cli

import (
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeTLS12SaysNoHTTP3: serve --tls-max 1.2 says that it serves no
// HTTP/3 and why, instead of announcing HTTP/3 that no client could reach.
func TestServeTLS12SaysNoHTTP3(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	ended := make(chan struct{})
	go func() { done <- Run(ctx, []string{"serve", "--tls-max", "1.2"}, &out, &errb); close(ended) }()
	errb.waitFor("serving", ended, 10*time.Second)
	cancel()
	if code := <-done; code != ExitOK {
		t.Fatalf("serve --tls-max 1.2 exited with %d; want %d\n%s", code, ExitOK, errb.String())
	}
	got := errb.String()
	if !strings.Contains(got, "no HTTP/3: QUIC needs TLS 1.3") || strings.Contains(got, "HTTP/3 on the same port") {
		t.Errorf("serve --tls-max 1.2 said %q; want 'no HTTP/3: QUIC needs TLS 1.3' and no HTTP/3 announced", got)
	}
}

// TestServeUDPPortTaken: when only the UDP side of --https-port is taken,
// the hint names HTTP/3 and --no-http3 (it only said to pick other ports).
func TestServeUDPPortTaken(t *testing.T) {
	// The TCP side of the port is free when the test looks, but another
	// test may take it before serve binds it: that port is tried again
	// with another (at most 5 times), as it is not what the test is about.
	for range 5 {
		udp, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)
		var errb syncBuffer
		code := Run(context.Background(), []string{"serve", "--https-port", port}, io.Discard, &errb)
		udp.Close()
		if strings.Contains(errb.String(), "listen tcp 127.0.0.1:"+port) {
			continue // the TCP side was taken meanwhile
		}
		if want := "or --no-http3"; code != ExitFailure || !strings.Contains(errb.String(), "UDP port "+port) || !strings.Contains(errb.String(), want) {
			t.Errorf("serve --https-port %s with the UDP port taken = %d, %q; want %d, the UDP port and %q", port, code, errb.String(), ExitFailure, want)
		}
		return
	}
	t.Fatal("the TCP side of 5 free UDP ports was taken each time before serve bound it")
}
