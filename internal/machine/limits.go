package machine

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// FDReserve is the descriptors kept back from connections for the
// process itself: standard streams, the poller, files and the server's
// /proc entries.
const FDReserve = 64

// maxConnLimit is ConnLimit when nothing lower bounds it.
const maxConnLimit = 1 << 20

// ConnLimit returns how many connections this process can open to one
// server address, and why (empty when nothing of the machine bounds it
// below 1<<20): each takes a file descriptor (RLIMIT_NOFILE, less
// FDReserve) and, to the same address and port, a local port of its own
// (net.ipv4.ip_local_port_range).
func ConnLimit() (n int, why string) {
	n = maxConnLimit
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && lim.Cur > FDReserve && lim.Cur-FDReserve < uint64(n) {
		n = int(lim.Cur - FDReserve)
		why = fmt.Sprintf("the open-file limit is %d (ulimit -n) and each connection takes a descriptor", lim.Cur)
	}
	if ports, ok := LocalPorts(); ok && ports < n {
		n = ports
		why = fmt.Sprintf("the machine gives %d local ports to the connections to one address (net.ipv4.ip_local_port_range)", ports)
	}
	return n, why
}

// LocalPorts reads the size of the ephemeral port range.
func LocalPorts() (int, bool) {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	return parsePortRange(string(data))
}

// parsePortRange reads "LOW HIGH" as the number of ports from LOW to HIGH.
func parsePortRange(s string) (int, bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, false
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || lo < 0 || hi < lo {
		return 0, false
	}
	return hi - lo + 1, true
}
