package load

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"golang.org/x/sys/unix"
)

// rawPair returns a raw client connection and the server side of a
// loopback TCP connection.
func rawPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	rc := withRawIO(c)
	if _, ok := rc.(*rawConn); !ok {
		t.Fatalf("withRawIO(%T) = %T; want *rawConn", c, rc)
	}
	t.Cleanup(func() { rc.Close(); s.Close() })
	return rc, s
}

// TestRawConn checks the raw connection against a real peer: data both
// ways (a write larger than the socket buffers, so that it waits in the
// netpoller), a read that waits for data, the deadline, EOF and a write
// to a closed peer.
func TestRawConn(t *testing.T) {
	c, s := rawPair(t)

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(s, int64(len(big))))
		got <- b
	}()
	if n, err := c.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write(4 MiB) = %d, %v", n, err)
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("peer read %d bytes, not the %d written", len(b), len(big))
	}

	go func() {
		time.Sleep(20 * time.Millisecond)
		s.Write([]byte("late reply"))
	}()
	buf := make([]byte, 64)
	if n, err := io.ReadFull(c, buf[:10]); n != 10 || err != nil || string(buf[:10]) != "late reply" {
		t.Fatalf("ReadFull = %d %q, %v; want the late reply", n, buf[:n], err)
	}

	c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	_, err := c.Read(buf)
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past the deadline: %v; want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})

	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Errorf("Read(nil) = %d, %v; want 0, nil", n, err)
	}
	s.Close()
	if n, err := c.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("Read after the peer closed = %d, %v; want EOF", n, err)
	}
	var werr error
	for i := 0; i < 100 && werr == nil; i++ { // the first writes may still be accepted
		_, werr = c.Write([]byte("after close"))
		time.Sleep(time.Millisecond)
	}
	var op *net.OpError
	if !errors.As(werr, &op) || op.Op != "write" {
		t.Fatalf("Write to a closed peer: %v; want a write error", werr)
	}
	c.Close()
	if _, err := c.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close: %v; want net.ErrClosed", err)
	}
}

// TestHoldFlight: the client's last handshake flight leaves with the first
// write after the handshake, in one write(2), in TLS 1.3; a handshake that
// waits for the server after its flight (TLS 1.2) still completes, and the
// server reads every byte in order either way.
func TestHoldFlight(t *testing.T) {
	_, leaf := labtest.LoopbackLeaf(t)
	cert := leaf.TLS
	for _, tt := range []struct {
		version    uint16
		wantWrites int
	}{
		{tls.VersionTLS13, 2}, // ClientHello; Finished with the request
		{tls.VersionTLS12, 3}, // ClientHello; ClientKeyExchange, Finished; the request
	} {
		c, s := rawPair(t)
		raw := c.(*rawConn)
		served := make(chan string, 1)
		go func() {
			ts := tls.Server(s, &tls.Config{Certificates: []tls.Certificate{cert}, MaxVersion: tt.version})
			b := make([]byte, 4)
			if _, err := io.ReadFull(ts, b); err != nil {
				served <- err.Error()
				return
			}
			ts.Write([]byte("pong"))
			served <- string(b)
		}()
		raw.holdFlight(true)
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true, MaxVersion: tt.version})
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if err := tc.Handshake(); err != nil {
			t.Fatalf("TLS %x: handshake: %v", tt.version, err)
		}
		raw.holdFlight(false)
		if n, err := tc.Write([]byte("ping")); n != 4 || err != nil {
			t.Fatalf("TLS %x: Write = %d, %v", tt.version, n, err)
		}
		b := make([]byte, 4)
		if _, err := io.ReadFull(tc, b); err != nil || string(b) != "pong" {
			t.Fatalf("TLS %x: read %q, %v; want pong", tt.version, b, err)
		}
		if got := <-served; got != "ping" {
			t.Errorf("TLS %x: server read %q; want ping", tt.version, got)
		}
		if raw.writes != tt.wantWrites {
			t.Errorf("TLS %x: %d writes; want %d", tt.version, raw.writes, tt.wantWrites)
		}
	}
}

// TestReadAhead: small reads are served from one read(2) of up to
// readAheadSize bytes, in order, and a read as large as readAheadSize
// reads into the caller's buffer itself.
func TestReadAhead(t *testing.T) {
	c, s := rawPair(t)
	raw := c.(*rawConn)
	want := make([]byte, 3000)
	for i := range want {
		want[i] = byte(i * 7)
	}
	if _, err := s.Write(want); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// Wait for the whole write to arrive, so one read can take it.
	for deadline := time.Now().Add(5 * time.Second); ; {
		var n int
		raw.rc.Control(func(fd uintptr) { n, _ = syscallInq(int(fd)) })
		if n == len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var got []byte
	buf := make([]byte, 100)
	for len(got) < len(want) {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("Read after %d bytes: %v", len(got), err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the bytes read differ from the bytes written")
	}
	if raw.reads != 1 {
		t.Errorf("%d read(2) calls for 3000 bytes read 100 at a time; want 1", raw.reads)
	}
	if raw.ahead != nil || len(raw.rest) != 0 {
		t.Error("the read-ahead buffer is still held with nothing left in it")
	}
	big := make([]byte, readAheadSize)
	s.Write(want[:10])
	if n, err := c.Read(big); n != 10 || err != nil || raw.ahead != nil {
		t.Errorf("Read(%d bytes) = %d, %v (read ahead: %v); want 10 bytes read directly", len(big), n, err, raw.ahead != nil)
	}
	s.Close()
	if _, err := c.Read(buf); err != io.EOF {
		t.Errorf("Read after the peer closed: %v; want EOF", err)
	}
}

// syscallInq returns the bytes waiting in a socket's receive queue.
func syscallInq(fd int) (int, error) { return unix.IoctlGetInt(fd, unix.SIOCINQ) }

// TestAwaitReply checks a write that waits for the answer: it returns
// once the peer has answered, and the read that follows finds the answer
// with no read(2) that comes back empty, where a plain write's read
// does; against a peer that closed the connection before the write, and
// one that never answers, the read that follows reports what happened.
func TestAwaitReply(t *testing.T) {
	const delay = 30 * time.Millisecond
	answerLate := func(s net.Conn) {
		buf := make([]byte, 64)
		if _, err := s.Read(buf); err == nil {
			time.Sleep(delay)
			s.Write([]byte("answer"))
		}
	}
	for _, await := range []bool{false, true} {
		c, s := rawPair(t)
		raw := c.(*rawConn)
		go answerLate(s)
		start := time.Now()
		if await {
			raw.awaitReply()
		}
		if n, err := c.Write([]byte("request")); n != 7 || err != nil {
			t.Fatalf("await %v: Write = %d, %v", await, n, err)
		}
		took := time.Since(start)
		if await && took < delay*2/3 {
			t.Errorf("awaited Write returned after %v; want at least the peer's delay of %v", took, delay)
		}
		// Sent says when the bytes went out: before the wait, not at its end.
		if sent, waited := raw.Sent(); waited != await {
			t.Errorf("await %v: Sent says the Write waited: %v", await, waited)
		} else if await && sent.Sub(start) > delay/3 {
			t.Errorf("awaited Write: Sent %v after the call, for a Write that took %v; want the time of the write, before the wait", sent.Sub(start), took)
		}
		buf := make([]byte, 64)
		if n, err := c.Read(buf); err != nil || string(buf[:n]) != "answer" {
			t.Fatalf("await %v: Read = %q, %v; want the answer", await, buf[:n], err)
		}
		if await && raw.empty != 0 {
			t.Errorf("awaited: %d read(2) calls found nothing; want 0", raw.empty)
		}
		if !await && raw.empty == 0 {
			t.Errorf("not awaited: no read(2) found nothing; want one before the late answer")
		}
		if raw.await {
			t.Errorf("await %v: still set after the Write", await)
		}
	}

	// The peer closes first: the write draws a reset, which ends the wait.
	c, s := rawPair(t)
	s.Close()
	time.Sleep(20 * time.Millisecond) // the FIN arrives before the write
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.(*rawConn).awaitReply()
	start := time.Now()
	c.Write([]byte("request"))
	if _, err := c.Read(make([]byte, 64)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read after a write to a closed peer: %v; want EOF or a reset", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a write to a closed peer waited %v", took)
	}

	// No answer: the wait ends at the deadline, the Read reports it.
	c, _ = rawPair(t)
	c.SetDeadline(time.Now().Add(50 * time.Millisecond))
	c.(*rawConn).awaitReply()
	if n, err := c.Write([]byte("request")); n != 7 || err != nil {
		t.Fatalf("Write before the deadline = %d, %v", n, err)
	}
	if _, err := c.Read(make([]byte, 64)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read with no answer: %v; want the deadline", err)
	}
}
