package load

import (
	"io"
	"net"
	"os"
	"syscall"
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
	*net.TCPConn
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
}

// withRawIO returns c with raw reads and writes, or c itself when its
// descriptor cannot be had.
func withRawIO(c net.Conn) net.Conn {
	tcp, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	rc, err := tcp.SyscallConn()
	if err != nil {
		return c
	}
	r := &rawConn{TCPConn: tcp, rc: rc}
	r.readFn, r.writeFn = r.read, r.write
	return r
}

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c.rbuf, c.rn, c.rerr = b, 0, 0
	err := c.rc.Read(c.readFn)
	c.rbuf = nil
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case c.rerr != 0:
		return 0, c.opError("read", os.NewSyscallError("read", c.rerr))
	case c.rn == 0:
		return 0, io.EOF
	}
	return c.rn, nil
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
		return e != syscall.EAGAIN
	}
}

func (c *rawConn) Write(b []byte) (int, error) {
	c.wbuf, c.wn, c.werr = b, 0, 0
	err := c.rc.Write(c.writeFn)
	c.wbuf = nil
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

func (c *rawConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
