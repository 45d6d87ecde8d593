package labtest

import (
	"net"
	"sync"
	"testing"
)

// ServeTCP accepts connections on a new loopback TCP port and hands each
// to handle in a goroutine of its own, until the test ends; it returns the
// port's address. It stands in for servers that misbehave (stall, close
// early, speak another protocol) in tests of how clients report them.
// When the test ends, the listener and every connection still open are
// closed, so a handle that blocks on its connection returns.
func ServeTCP(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	addr, stop, err := serveTCP("", handle)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

// serveTCP is ServeTCP outside a test, on host (127.0.0.1 when ""): stop
// closes the listener and every connection still open, and waits for
// their handlers.
func serveTCP(host string, handle func(net.Conn)) (addr string, stop func(), err error) {
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", nil, err
	}
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	var wg sync.WaitGroup
	stop = func() {
		ln.Close()
		mu.Lock()
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open[c] = true
			mu.Unlock()
			wg.Go(func() {
				handle(c)
				mu.Lock()
				delete(open, c)
				mu.Unlock()
			})
		}
	})
	return ln.Addr().String(), stop, nil
}
