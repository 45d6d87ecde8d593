package labtest

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ConnCount is what proxies started by CountConns saw: the connections
// their clients opened, and the most held open at once, over all of them.
type ConnCount struct {
	mu    sync.Mutex
	open  []*net.TCPConn // client sides seen open at the last accept
	max   int
	total int
}

// CountConns starts a TCP proxy on loopback in front of each of addrs,
// sharing one ConnCount, and returns it with the proxies' addresses, in
// addrs' order. They stop with the test.
//
// A connection counts as open from its accept until its client's FIN or
// RST has arrived, as the kernel's state of the proxy's socket says when
// the next connection is accepted, not when the proxy's goroutine gets to
// read it: a client that closes a connection and then opens the next is
// never counted as holding both. Each direction's end is passed on as a
// half-close, so that clients and servers see each other's ends as
// without the proxy.
func CountConns(t testing.TB, addrs ...string) (*ConnCount, []string) {
	t.Helper()
	c := &ConnCount{}
	var out []string
	for _, to := range addrs {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listening for a proxy to %s: %v", to, err)
		}
		var wg sync.WaitGroup
		t.Cleanup(func() {
			ln.Close()
			wg.Wait()
		})
		wg.Go(func() { c.serve(ln, to, &wg) })
		out = append(out, ln.Addr().String())
	}
	return c, out
}

// Max returns the most connections held open at once since the last Reset.
func (c *ConnCount) Max() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.max
}

// Total returns the connections accepted since the last Reset.
func (c *ConnCount) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// Reset starts a new count; connections still open count on.
func (c *ConnCount) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open = stillOpen(c.open)
	c.max, c.total = len(c.open), 0
}

// accepted counts conn and the connections still open beside it.
func (c *ConnCount) accepted(conn *net.TCPConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open = append(stillOpen(c.open), conn)
	c.max = max(c.max, len(c.open))
	c.total++
}

// stillOpen returns the connections whose client has not ended them.
func stillOpen(conns []*net.TCPConn) []*net.TCPConn {
	var out []*net.TCPConn
	for _, conn := range conns {
		if clientOpen(conn) {
			out = append(out, conn)
		}
	}
	return out
}

// clientOpen reports whether no FIN or RST has come from conn's client:
// the socket is established, or only the proxy has sent its FIN. A
// socket the proxy closed already is not open.
func clientOpen(conn *net.TCPConn) bool {
	rc, err := conn.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	err = rc.Control(func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return
		}
		switch info.State {
		case tcpEstablished, tcpFinWait1, tcpFinWait2:
			open = true
		}
	})
	return err == nil && open
}

// TCP states as Linux numbers them (include/net/tcp_states.h).
const (
	tcpEstablished = 1
	tcpFinWait1    = 4
	tcpFinWait2    = 5
)

// serve accepts connections until ln is closed and proxies each to to.
func (c *ConnCount) serve(ln net.Listener, to string, wg *sync.WaitGroup) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		client := conn.(*net.TCPConn)
		c.accepted(client)
		wg.Go(func() { proxy(client, to) })
	}
}

// proxy copies between client and a new connection to the server, each
// direction's end passed on as a half-close. A server that does not end
// its side within 10 s of the client's end is cut off.
func proxy(client *net.TCPConn, to string) {
	defer client.Close()
	s, err := net.DialTimeout("tcp", to, 5*time.Second)
	if err != nil {
		return
	}
	server := s.(*net.TCPConn)
	defer server.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := io.Copy(server, client)
		if err != nil && !errors.Is(err, net.ErrClosed) {
			// A reset client: the server is reset too.
			_ = server.SetLinger(0)
			server.Close()
			return
		}
		_ = server.CloseWrite()
		_ = server.SetReadDeadline(time.Now().Add(10 * time.Second))
	}()
	if _, err := io.Copy(client, server); err != nil {
		_ = client.SetLinger(0)
		client.Close()
	} else {
		_ = client.CloseWrite()
	}
	<-done
}
