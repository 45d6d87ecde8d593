package transport

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Counts are bytes on the wire: TCP payload for a TCP connection (TLS
// records included), UDP payload for QUIC.
type Counts struct {
	Read, Written int64
}

// Sub returns c minus o, for the bytes exchanged between two snapshots.
func (c Counts) Sub(o Counts) Counts {
	return Counts{Read: c.Read - o.Read, Written: c.Written - o.Written}
}

// monoBase anchors the monotonic write timestamps kept in atomics.
var monoBase = time.Now()

// counter counts bytes with atomics: HTTP/2 reads on its own goroutine
// while the caller snapshots.
type counter struct {
	read, written atomic.Int64
	lastWrite     atomic.Int64 // when the last write began, since monoBase; 0: never
}

// writing stamps the start of a write of n bytes and counts them. Both
// happen before the system call: a goroutine can be descheduled right
// after the call returns, while the peer already answers, so a stamp or a
// count taken after could come later than the answer. wrote corrects the
// count for a short write.
func (c *counter) writing(n int) {
	c.lastWrite.Store(int64(time.Since(monoBase)))
	c.written.Add(int64(n))
}

// wrote corrects the count of writing(want) when only n bytes went out.
func (c *counter) wrote(want, n int) {
	if n < want {
		c.written.Add(int64(n - want))
	}
}

// LastWrite returns when the last write to the socket began, with a
// monotonic clock reading; zero if nothing was written. Trace hooks that
// report a finished request can fire late on a busy machine; the socket's
// own timestamp cannot.
func (c *counter) LastWrite() time.Time {
	if d := c.lastWrite.Load(); d != 0 {
		return monoBase.Add(time.Duration(d))
	}
	return time.Time{}
}

func (c *counter) Counts() Counts {
	return Counts{Read: c.read.Load(), Written: c.written.Load()}
}

// App returns the bytes of the application (HTTP) so far: everything
// after the end of the handshake, or everything when there was none.
func (c *Conn) App() Counts {
	hs, _ := c.Handshake()
	return c.Counts().Sub(hs)
}

// markHandshake remembers the counts at the end of the handshake.
func (c *Conn) markHandshake() {
	n := c.Counts()
	c.handshake.Store(&n)
}

// Handshake returns the bytes exchanged up to the end of the handshake,
// and false if the handshake has not completed.
func (c *Conn) Handshake() (Counts, bool) {
	if p := c.handshake.Load(); p != nil {
		return *p, true
	}
	return Counts{}, false
}

// Conn is a TCP connection that counts the bytes read and written. The
// TLS connection of an HTTPS request runs on top of it.
type Conn struct {
	net.Conn
	counter
	handshake atomic.Pointer[Counts] // the counts at the end of the TLS handshake
}

// NewConn wraps c to count its bytes.
func NewConn(c net.Conn) *Conn {
	return &Conn{Conn: c}
}

func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

func (c *Conn) Write(p []byte) (int, error) {
	c.writing(len(p))
	n, err := c.Conn.Write(p)
	c.wrote(len(p), n)
	return n, err
}

// KernelRTT is the kernel's smoothed round-trip time and its variance for
// a TCP connection, from TCP_INFO.
type KernelRTT struct {
	RTT, RTTVar time.Duration
}

// ErrNoTCPInfo is returned by RTT for connections that are not TCP.
var ErrNoTCPInfo = errors.New("no TCP_INFO: not a TCP connection")

// RTT reads the kernel's RTT estimate of the connection from TCP_INFO.
func (c *Conn) RTT() (KernelRTT, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return KernelRTT{}, ErrNoTCPInfo
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return KernelRTT{}, fmt.Errorf("reading TCP_INFO: %w", err)
	}
	var info *unix.TCPInfo
	var serr error
	err = raw.Control(func(fd uintptr) {
		info, serr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	})
	if err == nil {
		err = serr
	}
	if err != nil {
		return KernelRTT{}, fmt.Errorf("reading TCP_INFO: %w", err)
	}
	return KernelRTT{
		RTT:    time.Duration(info.Rtt) * time.Microsecond,
		RTTVar: time.Duration(info.Rttvar) * time.Microsecond,
	}, nil
}

// PacketConn is a UDP socket that counts the payload bytes it sends and
// receives; QUIC runs on top of it. In QUIC the handshake and the first
// request can travel at the same time (0-RTT, and the client's handshake
// ends only when the server's last handshake packets are processed), so a
// point in time cannot split the bytes. PacketConn splits each datagram
// by packet type instead (SplitDatagram): Initial and Handshake packets
// are handshake bytes, 0-RTT and 1-RTT packets application bytes.
type PacketConn struct {
	net.PacketConn
	counter
	hsRead, hsWritten atomic.Int64
	hsDone            atomic.Bool // the QUIC handshake completed
}

// NewPacketConn wraps c to count its bytes.
func NewPacketConn(c net.PacketConn) *PacketConn {
	return &PacketConn{PacketConn: c}
}

// ReadFrom reads one datagram and counts its payload.
func (c *PacketConn) ReadFrom(p []byte) (int, net.Addr, error) {
	n, addr, err := c.PacketConn.ReadFrom(p)
	c.read.Add(int64(n))
	if n > 0 {
		hs, _ := SplitDatagram(p[:n])
		c.hsRead.Add(int64(hs))
	}
	return n, addr, err
}

// WriteTo sends one datagram and counts its payload.
func (c *PacketConn) WriteTo(p []byte, addr net.Addr) (int, error) {
	hs, _ := SplitDatagram(p)
	c.hsWritten.Add(int64(hs))
	c.writing(len(p))
	n, err := c.PacketConn.WriteTo(p, addr)
	if n < len(p) { // a datagram goes out whole or not at all
		c.hsWritten.Add(-int64(hs))
		c.wrote(len(p), 0)
	}
	return n, err
}

// Handshake returns the bytes of the datagrams classified as handshake,
// and whether the handshake has completed.
func (c *PacketConn) Handshake() (Counts, bool) {
	return Counts{Read: c.hsRead.Load(), Written: c.hsWritten.Load()}, c.hsDone.Load()
}

// markHandshake records that the QUIC handshake completed.
func (c *PacketConn) markHandshake() { c.hsDone.Store(true) }

// App returns the bytes of the 0-RTT and 1-RTT datagrams.
func (c *PacketConn) App() Counts {
	return c.Counts().Sub(Counts{Read: c.hsRead.Load(), Written: c.hsWritten.Load()})
}

// SetReadBuffer sets the socket's receive buffer. quic-go asks for a
// large one and warns on stderr if it cannot; the kernel caps the size
// silently, which is fine for measuring single requests.
func (c *PacketConn) SetReadBuffer(n int) error {
	if b, ok := c.PacketConn.(interface{ SetReadBuffer(int) error }); ok {
		return b.SetReadBuffer(n)
	}
	return nil
}

// SetWriteBuffer sets the socket's send buffer, as SetReadBuffer.
func (c *PacketConn) SetWriteBuffer(n int) error {
	if b, ok := c.PacketConn.(interface{ SetWriteBuffer(int) error }); ok {
		return b.SetWriteBuffer(n)
	}
	return nil
}
