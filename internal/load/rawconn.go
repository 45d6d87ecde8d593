package load

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// rawConn is a TCP connection whose reads and writes are made without
// telling the Go scheduler that a system call is under way. The socket
// is non-blocking, so a read or write returns at once (with EAGAIN when
// it would block, and then the connection waits in the netpoller as
// usual). Told of every system call, the runtime's monitor thread takes
// the processor from a loopback write that outlasts its 20 µs tick and
// then keeps waking every 20 µs: against nginx at -c 10 -m 10 that was
// 0.66-0.84 context switches per request, and 0.37-0.42 with raw calls,
// which cut the client's CPU per keep-alive request by 8-10% (h1 -c 50
// and HTTP/2 -c 10 -m 10, bench/peers.sh rows of the two builds paired
// over 10 rounds; handshake rows unchanged).
type rawConn struct {
	// The connection's Close, addresses and deadlines: a *net.TCPConn,
	// or the socket openTCP opened.
	net.Conn
	rc syscall.RawConn
	// The state of the read and the write under way, and the functions
	// that the runtime calls with the descriptor, bound once: closures
	// made per call escaped to the heap, 4 allocations per request on
	// HTTP/1.1 of the 5 a run made (TestRunAllocsPerRequest). A net.Conn
	// has at most one Read and one Write at a time, so each has its own.
	rbuf, wbuf []byte
	rn, wn     int
	rerr, werr syscall.Errno
	readFn     func(fd uintptr) bool
	writeFn    func(fd uintptr) bool
	// The client's last handshake flight, held back to leave in one
	// segment with the first request (see holdFlight); writes counts the
	// write(2) calls that sent data, for tests.
	// HTTP/2 reads and writes a connection from two goroutines, so the
	// first of them after the handshake takes held under heldMu.
	holding, answered bool
	pending           atomic.Bool // held has bytes
	heldMu            sync.Mutex
	held              []byte
	writes            int
	// wrote is set by a write in the handshake and cleared by the next
	// read (see Read); after the handshake HTTP/2 reads and writes from
	// two goroutines, and neither touches it.
	wrote bool
	// A Read smaller than readAheadSize reads up to readAheadSize bytes
	// into ahead, a buffer of readAheadPool, and keeps the rest in rest
	// for the Reads that follow; ahead goes back to the pool once rest is
	// empty. reads counts the read(2) calls that returned data, and
	// empty those that found nothing (EAGAIN), for tests.
	ahead *[]byte
	rest  []byte
	reads int
	empty int
	// await, set by awaitReply, makes the next Write wait for the answer
	// (see writeAwait); awaitFn is awaitStep, bound once, and awaitBuf
	// and written the state of that Write; sent is when its bytes were
	// written, before the wait, and waited whether the last Write waited
	// (see Sent).
	await    bool
	written  bool
	waited   bool
	sent     time.Time
	awaitBuf []byte
	awaitFn  func(fd uintptr) bool
	awaitN   int
	awaitErr error
	closed   atomic.Bool // Close was called
}

// readAheadSize is the least a read(2) asks for. crypto/tls reads a
// record's header and body with reads sized to what it still needs plus
// 512 bytes: a full handshake's server flight of 773 bytes (nginx, ECDSA)
// came in two reads, and a 1 kB response with the server's close_notify
// in two more. Read ahead, each arrives in one.
const readAheadSize = 4096

var readAheadPool = sync.Pool{New: func() any { b := make([]byte, readAheadSize); return &b }}

// holdFlight, while on, keeps back what is written after the first read:
// in a TLS handshake, the client's flight that answers the server's (TLS
// 1.3's Finished). Sent at once, it is a segment of its own that the
// server's kernel takes in, acknowledges and wakes the server for, just
// before the request arrives in the next segment; held, it leaves with
// the first write after the handshake (the request, or HTTP/2's
// preface), in one write(2) and one segment, as a browser sends its
// Finished and its request together. A read sends what is held first, so
// a handshake that waits for the server after its flight (TLS 1.2, a
// HelloRetryRequest) runs as before.
func (c *rawConn) holdFlight(on bool) { c.holding, c.answered = on, false }

// withRawIO returns c with raw reads and writes, or c itself when its
// descriptor cannot be had.
func withRawIO(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	r := &rawConn{Conn: c, rc: rc}
	r.readFn, r.writeFn, r.awaitFn = r.read, r.write, r.awaitStep
	return r
}

// awaitReply makes the next Write, which must be the request's last
// (the whole of it, on HTTP/1.1 in one Write), return only once the
// connection has something to read: the answer, or its end. A read
// right after the write nearly always fails (EAGAIN), as the server has
// not answered yet, and then waits in the poller: per request a read(2)
// that returns nothing. Waiting first spares it. The readiness the wait
// looks for is cleared before the request is written, so the answer,
// which can only come after it, is never missed; what came before (a
// session ticket) is read with it by the Read that follows, and a server
// that closed the connection before the write answers it with a reset,
// which ends the wait too. Against nginx at -c 50 (perf stat, unconstrained and held to
// a quarter core): read(2) calls per keep-alive request 1.95 -> 1.00,
// system calls 4.3 -> 3.2.
func (c *rawConn) awaitReply() { c.await = true }

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if len(c.rest) > 0 {
		return c.takeRest(b), nil
	}
	if c.pending.Load() {
		if err := c.sendHeld(nil); err != nil {
			return 0, err
		}
	}
	if c.holding {
		// In the handshake (one goroutine reads and writes), just after a
		// flight went out: the server's answer is not there yet, and a
		// read now fails with EAGAIN and waits in the poller. After the
		// other connections have had their turn it usually is (as
		// yieldForResponse does for requests).
		if c.wrote {
			runtime.Gosched()
		}
		c.wrote = false
	}
	c.answered = true
	dst := b
	if len(b) < readAheadSize {
		c.ahead = readAheadPool.Get().(*[]byte)
		dst = *c.ahead
	}
	c.rbuf, c.rn, c.rerr = dst, 0, 0
	err := c.rc.Read(c.readFn)
	c.rbuf = nil
	switch {
	case err != nil:
		c.releaseAhead()
		return 0, c.opError("read", err)
	case c.rerr != 0:
		c.releaseAhead()
		return 0, c.opError("read", os.NewSyscallError("read", c.rerr))
	case c.rn == 0:
		c.releaseAhead()
		return 0, io.EOF
	}
	c.reads++
	if c.ahead == nil {
		return c.rn, nil
	}
	c.rest = dst[:c.rn]
	return c.takeRest(b), nil
}

// takeRest copies what b holds of the data read ahead.
func (c *rawConn) takeRest(b []byte) int {
	n := copy(b, c.rest)
	c.rest = c.rest[n:]
	if len(c.rest) == 0 {
		c.releaseAhead()
	}
	return n
}

func (c *rawConn) releaseAhead() {
	if c.ahead != nil {
		readAheadPool.Put(c.ahead)
		c.ahead, c.rest = nil, nil
	}
}

// read makes one read(2), again after EINTR; it reports false to wait
// for the descriptor to be readable (EAGAIN).
func (c *rawConn) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.rbuf[0])), uintptr(len(c.rbuf)))
		if e == syscall.EINTR {
			continue
		}
		c.rn, c.rerr = int(r), e
		if e == syscall.EAGAIN {
			c.empty++
			return false
		}
		return true
	}
}

func (c *rawConn) Write(b []byte) (int, error) {
	await := c.await
	c.await, c.waited = false, false
	switch {
	case c.holding && c.answered: // in the handshake: one goroutine
		c.held = append(c.held, b...)
		c.pending.Store(true)
		return len(b), nil
	case c.pending.Load():
		if err := c.sendHeld(b); err != nil {
			return 0, err
		}
		return len(b), nil
	case await:
		return c.writeAwait(b)
	}
	return c.writeAll(b)
}

// writeAwait writes b inside a wait for the descriptor to be readable
// (see awaitReply): the poller's readiness is reset as the wait begins,
// then b is written, then the goroutine waits. An error of the wait
// (the deadline, a closed connection) is left to the Read that follows,
// which meets it again; when the wait could not begin, b is written as
// any other.
func (c *rawConn) writeAwait(b []byte) (int, error) {
	c.written = false
	c.awaitBuf, c.awaitN, c.awaitErr = b, 0, nil
	_ = c.rc.Read(c.awaitFn)
	c.awaitBuf = nil
	if !c.written {
		return c.writeAll(b)
	}
	c.waited = true
	return c.awaitN, c.awaitErr
}

// awaitStep is called by the poller: first to write (it reports false
// to wait for the descriptor to be readable, unless the write failed),
// then, readable, to end the wait.
func (c *rawConn) awaitStep(uintptr) bool {
	if c.written {
		return true
	}
	c.written = true
	c.awaitN, c.awaitErr = c.writeAll(c.awaitBuf)
	c.sent = time.Now()
	return c.awaitErr != nil
}

// Sent reports whether the last Write waited for the answer (see
// awaitReply; one that sent a held flight, or whose wait could not
// begin, did not, and neither did any on a nil c) and, if so, when it
// wrote its bytes: where the wait for the first response byte began.
// Such a Write returns when the answer is there.
func (c *rawConn) Sent() (time.Time, bool) {
	if c == nil {
		return time.Time{}, false
	}
	return c.sent, c.waited
}

// sendHeld writes the held flight and b, if that is still to be done, in
// one write(2).
func (c *rawConn) sendHeld(b []byte) error {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	if !c.pending.Load() {
		if len(b) == 0 {
			return nil
		}
		_, err := c.writeAll(b)
		return err
	}
	_, err := c.writeAll(append(c.held, b...))
	c.held = nil
	c.pending.Store(false)
	return err
}

func (c *rawConn) writeAll(b []byte) (int, error) {
	c.wbuf, c.wn, c.werr = b, 0, 0
	err := c.rc.Write(c.writeFn)
	c.wbuf = nil
	c.writes++
	if c.holding {
		c.wrote = true
	}
	switch {
	case err != nil:
		return c.wn, c.opError("write", err)
	case c.werr != 0:
		return c.wn, c.opError("write", os.NewSyscallError("write", c.werr))
	}
	return c.wn, nil
}

// write writes what remains of c.wbuf, again after EINTR; it reports
// false to wait for the descriptor to be writable (EAGAIN).
func (c *rawConn) write(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.wbuf[c.wn])), uintptr(len(c.wbuf)-c.wn))
		switch e {
		case 0:
			c.wn += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.werr = e
			return true
		}
	}
	return true
}

func (c *rawConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

func (c *rawConn) opError(op string, err error) error {
	if c.closed.Load() {
		err = net.ErrClosed // not the "use of closed file" of an os.File
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
