package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
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

// TestDialQUICClosesSockets: every QUIC dial opens a UDP socket of its
// own, which quic-go leaves open when the connection ends; a failed dial
// and a closed connection both close it, so repeated dials hold no
// descriptors.
func TestDialQUICClosesSockets(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	refused := labtest.ClosedAddr(t, "udp")
	cfg := &tls.Config{RootCAs: srv.CA.Pool(), ServerName: "localhost", NextProtos: []string{"h3"}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	before := openFiles(t)
	const dials = 10
	for range dials {
		qc, err := (&Dialer{}).DialQUIC(ctx, strings.TrimPrefix(srv.HTTPSURL, "https://"), cfg, nil)
		if err != nil {
			t.Fatalf("DialQUIC: %v", err)
		}
		qc.CloseWithError(0, "")
		if qc, err := (&Dialer{}).DialQUIC(ctx, refused, cfg, nil); err == nil {
			qc.CloseWithError(0, "")
			t.Fatalf("DialQUIC(%s) to a closed port: no error", refused)
		}
	}
	// A closed connection's socket is closed by its watcher: give it time.
	deadline := time.Now().Add(5 * time.Second)
	for openFiles(t) > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if after := openFiles(t); after > before+2 {
		t.Errorf("open descriptors went from %d to %d over %d dials and %d refusals; want no growth", before, after, dials, dials)
	}
}

func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}
