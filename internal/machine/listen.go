package machine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrUnknown is returned when the processes' sockets cannot be read (a
// process of another user without root): nobody can tell.
var ErrUnknown = errors.New("cannot read the sockets of the process")

// Listens reports whether one of the processes pids holds a socket that
// receives on port: a listening TCP socket, or a UDP socket bound to it
// (HTTP/3). Each process's sockets are looked up in its own network
// namespace (/proc/PID/net), so a server in a namespace of its own is
// found as well.
func Listens(pids []int, port int, udp bool) (bool, error) {
	var unknown error
	for _, pid := range pids {
		inodes, err := portInodes(pid, port, udp)
		if err != nil {
			unknown = err
			continue
		}
		if len(inodes) == 0 {
			continue
		}
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			unknown = fmt.Errorf("process %d: %w", pid, ErrUnknown)
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if err != nil {
				continue
			}
			if ino, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
				return true, nil
			}
		}
	}
	return false, unknown
}

// portInodes returns the inodes of the sockets in pid's network
// namespace that receive on port: TCP sockets in state LISTEN, UDP
// sockets bound to it with no peer.
func portInodes(pid, port int, udp bool) (map[string]bool, error) {
	files, state := []string{"tcp", "tcp6"}, "0A" // TCP_LISTEN
	if udp {
		files, state = []string{"udp", "udp6"}, "07" // TCP_CLOSE: bound, not connected
	}
	inodes := map[string]bool{}
	read := 0
	for _, f := range files {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			continue
		}
		read++
		for ino := range socketInodes(string(data), port, state) {
			inodes[ino] = true
		}
	}
	if read == 0 {
		return nil, fmt.Errorf("process %d: %w", pid, ErrUnknown)
	}
	return inodes, nil
}

// socketInodes yields the inodes of the lines of a /proc/net/tcp-style
// table whose local port is port and whose state is state. A line reads
// "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt
// uid timeout inode ...", addresses as hex IP:port.
func socketInodes(table string, port int, state string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for line := range strings.Lines(table) {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != state {
				continue
			}
			_, hexPort, ok := strings.Cut(f[1], ":")
			if !ok {
				continue
			}
			p, err := strconv.ParseUint(hexPort, 16, 16)
			if err != nil || int(p) != port {
				continue
			}
			if !yield(f[9]) {
				return
			}
		}
	}
}
