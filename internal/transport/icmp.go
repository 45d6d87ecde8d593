package transport

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// ListenUDP opens an unconnected UDP socket for a QUIC dial, with ICMP
// errors reported (below). network is "udp", "udp4" or "udp6". The caller
// closes it: a quic.Transport given a socket leaves it open.
func ListenUDP(network string) (*net.UDPConn, error) {
	udp, err := net.ListenUDP(network, nil)
	if err != nil {
		return nil, fmt.Errorf("opening a UDP socket: %w", err)
	}
	reportICMPErrors(udp)
	return udp, nil
}

// reportICMPErrors asks the kernel to report ICMP errors, above all "port
// unreachable", on an unconnected UDP socket (IP_RECVERR and
// IPV6_RECVERR, ip(7) and ipv6(7)): the next read or write then fails
// with ECONNREFUSED and quic-go ends the dial at once. Without it a QUIC
// dial to a port where nothing listens waits for the whole handshake
// timeout, as UDP has no refusal of its own. Both options are set, as a
// dual-stack socket carries IPv4 in IPv6; it is best effort: where an
// option fails, a dial to a closed port only takes longer.
func reportICMPErrors(udp *net.UDPConn) {
	raw, err := udp.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_RECVERR, 1)
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVERR, 1)
	})
}
