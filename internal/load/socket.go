package load

import (
	"context"
	"net"
	"net/netip"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// dialTCP connects to ap within deadline (openTCP, established), the
// connection's deadline from then on; until stop is called, ctx's end
// interrupts its waits.
func dialTCP(ctx context.Context, ap netip.AddrPort, deadline time.Time) (nc net.Conn, stop func() bool, err error) {
	s, err := openTCP(ap, deadline)
	if err != nil {
		return nil, nil, err
	}
	stop = context.AfterFunc(ctx, s.interrupt)
	if err := s.established(); err != nil {
		stop()
		s.Close()
		return nil, nil, err
	}
	return withRawIO(s), stop, nil
}

// openTCP starts a TCP connection to ap; socket.established finishes it.
// Together they take five system calls where net.Dialer takes seven and
// a wait in the poller: socket(2), setsockopt(2) for TCP_NODELAY, then
// connect(2), which on loopback has run the whole TCP handshake by the
// time it returns (EINPROGRESS all the same), then the poller's
// registration (fcntl(2), epoll_ctl(2)), then a second connect(2) that
// says how the first went (EISCONN: established). Only a connection
// still under way waits in the poller. net.Dialer always waits, then
// asks getsockopt(2), getpeername(2) and getsockname(2), and around them
// builds a context with a deadline, a timer and an address list per
// connection. The deadline is the connection's, for its reads and writes
// too.
//
// connect(2) is a raw system call, as rawConn's reads and writes are: on
// loopback it runs the server's side of the TCP handshake too, for about
// 20 µs, the tick after which the runtime's monitor thread takes the
// processor from a goroutine in a system call.
func openTCP(ap netip.AddrPort, deadline time.Time) (*socket, error) {
	sa, family := sockaddr(ap)
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, syscall.IPPROTO_TCP)
	if err != nil {
		return nil, dialError(ap, os.NewSyscallError("socket", err))
	}
	if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
		syscall.Close(fd)
		return nil, dialError(ap, os.NewSyscallError("setsockopt", err))
	}
	switch err := rawConnect(uintptr(fd), sa); err {
	case 0, syscall.EINPROGRESS, syscall.EINTR:
	default:
		syscall.Close(fd)
		return nil, dialError(ap, os.NewSyscallError("connect", err))
	}
	// The descriptor is non-blocking: os.NewFile registers it with the
	// poller.
	s := &socket{File: os.NewFile(uintptr(fd), "tcp"), ap: ap, sa: sa}
	if err := s.File.SetDeadline(deadline); err != nil {
		s.Close()
		return nil, dialError(ap, err)
	}
	return s, nil
}

// established waits until the connection openTCP started is established
// or has failed, within the deadline.
func (s *socket) established() error {
	rc, err := s.File.SyscallConn()
	if err != nil {
		return dialError(s.ap, err)
	}
	// connect(2) again on a socket whose connection is under way says
	// how it goes: EALREADY while it is under way, EISCONN once it is
	// established, else the error it failed with.
	var cerr syscall.Errno
	werr := rc.Write(func(fd uintptr) bool {
		cerr = rawConnect(fd, s.sa)
		return cerr != syscall.EALREADY && cerr != syscall.EINPROGRESS && cerr != syscall.EINTR
	})
	switch {
	case werr != nil:
		return dialError(s.ap, werr)
	case cerr != 0 && cerr != syscall.EISCONN:
		return dialError(s.ap, os.NewSyscallError("connect", cerr))
	}
	return nil
}

// rawConnect is connect(2) of fd to sa, made without telling the
// scheduler.
func rawConnect(fd uintptr, sa *rawSockaddr) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_CONNECT, fd, uintptr(unsafe.Pointer(&sa.b[0])), uintptr(sa.n))
	return e
}

// rawSockaddr is a socket address as connect(2) takes it: a struct
// sockaddr_in or sockaddr_in6 in b, n bytes long.
type rawSockaddr struct {
	b [syscall.SizeofSockaddrInet6]byte
	n int
}

// sockaddr returns ap as connect(2) takes it, and its address family.
func sockaddr(ap netip.AddrPort) (*rawSockaddr, int) {
	sa := &rawSockaddr{}
	a := ap.Addr()
	// sin_port and sin6_port sit at the same offset, in network order.
	port := (*[2]byte)(unsafe.Pointer(&sa.b[2]))
	port[0], port[1] = byte(ap.Port()>>8), byte(ap.Port())
	if a.Is4() || a.Is4In6() {
		in := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&sa.b[0]))
		in.Family = syscall.AF_INET
		in.Addr = a.Unmap().As4()
		sa.n = syscall.SizeofSockaddrInet4
		return sa, syscall.AF_INET
	}
	in := (*syscall.RawSockaddrInet6)(unsafe.Pointer(&sa.b[0]))
	in.Family = syscall.AF_INET6
	in.Addr = a.As16()
	in.Scope_id = zoneIndex(a.Zone())
	sa.n = syscall.SizeofSockaddrInet6
	return sa, syscall.AF_INET6
}

// zoneIndex is the interface index an IPv6 zone names, by name or by
// number; 0 for none.
func zoneIndex(zone string) uint32 {
	if zone == "" {
		return 0
	}
	if ifi, err := net.InterfaceByName(zone); err == nil {
		return uint32(ifi.Index)
	}
	n, _ := strconv.ParseUint(zone, 10, 32)
	return uint32(n)
}

// socket is a TCP connection that openTCP opened: the descriptor as an
// os.File, which the poller waits on, and the addresses a net.Conn
// reports. Its reads and writes are rawConn's.
type socket struct {
	*os.File
	ap netip.AddrPort
	sa *rawSockaddr // ap as connect(2) takes it
}

// RemoteAddr is the address dialed.
func (s *socket) RemoteAddr() net.Addr { return net.TCPAddrFromAddrPort(s.ap) }

// LocalAddr asks the kernel (getsockname(2)): it is needed only to
// describe an error.
func (s *socket) LocalAddr() net.Addr {
	rc, err := s.File.SyscallConn()
	if err != nil {
		return nil
	}
	var addr net.Addr
	_ = rc.Control(func(fd uintptr) {
		switch sa, _ := syscall.Getsockname(int(fd)); sa := sa.(type) {
		case *syscall.SockaddrInet4:
			addr = &net.TCPAddr{IP: sa.Addr[:], Port: sa.Port}
		case *syscall.SockaddrInet6:
			addr = &net.TCPAddr{IP: sa.Addr[:], Port: sa.Port, Zone: s.ap.Addr().Zone()}
		}
	})
	return addr
}

// interrupt makes the connection's waits end at once, with a timeout:
// the run was interrupted while it was being set up.
func (s *socket) interrupt() { _ = s.File.SetDeadline(time.Unix(1, 0)) }

// dialError describes a failure to connect to ap as net.Dialer does.
func dialError(ap netip.AddrPort, err error) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: net.TCPAddrFromAddrPort(ap), Err: err}
}
