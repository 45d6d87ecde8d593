package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestDialQUICRefused: a QUIC dial to a UDP port where nothing listens
// ends with ECONNREFUSED as soon as the kernel's ICMP port unreachable
// comes back, not after the handshake timeout.
func TestDialQUICRefused(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "::1"} {
		t.Run(host, func(t *testing.T) {
			pc, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
			if err != nil {
				t.Fatal(err)
			}
			addr := pc.LocalAddr().String()
			pc.Close() // the port is free now: datagrams to it are refused
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start := time.Now()
			qc, err := (&Dialer{}).DialQUIC(ctx, addr, &tls.Config{ServerName: "localhost", NextProtos: []string{"h3"}}, nil)
			if err == nil {
				qc.CloseWithError(0, "")
				t.Fatalf("DialQUIC(%s) to a closed port: no error", addr)
			}
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("DialQUIC(%s) = %v; want ECONNREFUSED", addr, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("DialQUIC(%s) took %v; want the refusal within 2s", addr, d)
			}
		})
	}
}
