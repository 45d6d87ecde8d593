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
	return &rawConn{TCPConn: tcp, rc: rc}
}

func (c *rawConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if e == syscall.EINTR {
				continue
			}
			n, errno = int(r), e
			return e != syscall.EAGAIN
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawConn) Write(b []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for written < len(b) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[written])), uintptr(len(b)-written))
			switch e {
			case 0:
				written += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return written, c.opError("write", err)
	case errno != 0:
		return written, c.opError("write", os.NewSyscallError("write", errno))
	}
	return written, nil
}

func (c *rawConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
