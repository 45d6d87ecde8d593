package load

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"syscall"
	"testing"
	"time"
)

// TestDialTCP connects over IPv4 and IPv6 and checks what the connection
// reports and that bytes pass both ways.
func TestDialTCP(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		t.Run(network, func(t *testing.T) {
			addr := map[string]string{"tcp4": "127.0.0.1:0", "tcp6": "[::1]:0"}[network]
			ln, err := net.Listen(network, addr)
			if err != nil {
				t.Fatalf("no %s loopback: %v", network, err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
				io.Copy(c, c)
			}()
			ap := ln.Addr().(*net.TCPAddr).AddrPort()
			nc, stop, err := dialTCP(context.Background(), ap, time.Now().Add(5*time.Second))
			if err != nil {
				t.Fatalf("dialTCP(%v): %v", ap, err)
			}
			stop()
			defer nc.Close()
			if got := nc.RemoteAddr().(*net.TCPAddr).AddrPort(); got != ap {
				t.Errorf("RemoteAddr() = %v; want %v", got, ap)
			}
			local := nc.LocalAddr().(*net.TCPAddr)
			if !local.AddrPort().Addr().Unmap().IsLoopback() || local.Port == 0 {
				t.Errorf("LocalAddr() = %v; want a loopback address and port", local)
			}
			if _, err := nc.Write([]byte("ping")); err != nil {
				t.Fatalf("Write: %v", err)
			}
			buf := make([]byte, 4)
			if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != "ping" {
				t.Fatalf("ReadFull = %q, %v; want the echo", buf, err)
			}
			nc.Close()
			if _, err := nc.Read(buf); !errors.Is(err, net.ErrClosed) {
				t.Errorf("Read after Close: %v; want net.ErrClosed", err)
			}
		})
	}
}

// TestDialTCPRefused checks that a refused connection fails as net.Dialer
// reports it, so that counts and hints name it the same.
func TestDialTCPRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ap := ln.Addr().(*net.TCPAddr).AddrPort()
	ln.Close()
	_, _, err = dialTCP(context.Background(), ap, time.Now().Add(5*time.Second))
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dialTCP(%v) = %v; want ECONNREFUSED", ap, err)
	}
	if got, want := errorMessage(err), "dial: connect: connection refused"; got != want {
		t.Errorf("errorMessage(%v) = %q; want %q", err, got, want)
	}
}

// TestDialTCPWaits connects to a listener whose accept queue is full, so
// that the kernel drops the SYN and the connection stays under way: the
// deadline ends the wait with a timeout, and an ended context ends it at
// once.
func TestDialTCPWaits(t *testing.T) {
	ap := fullListener(t)
	start := time.Now()
	_, _, err := dialTCP(context.Background(), ap, time.Now().Add(200*time.Millisecond))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("dialTCP to a full accept queue = %v; want a timeout", err)
	}
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Errorf("dialTCP timed out after %v; want the 200 ms deadline", took)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	_, _, err = dialTCP(ctx, ap, time.Now().Add(time.Minute))
	if err == nil {
		t.Fatal("dialTCP with a context ended = nil error; want one")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("dialTCP took %v after its context ended; want it to end at once", took)
	}
}

// fullListener returns the address of a listening socket with a backlog
// of 0 that never accepts, its queue filled by connections held open
// until the test ends.
func fullListener(t *testing.T) netip.AddrPort {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	ap := netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(sa.(*syscall.SockaddrInet4).Port))
	// A backlog of 0 holds one connection; a few more make sure.
	for range 3 {
		c, err := net.DialTimeout("tcp", ap.String(), 100*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
	}
	return ap
}
