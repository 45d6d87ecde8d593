package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxThreads bounds -t: the Go runtime keeps state per thread slot, and a
// count far past the cores only costs memory (-t 100000 took 2 GiB).
const maxThreads = 1024

// maxInFlight bounds the requests in flight at once, -c x -m x
// --pipeline: each holds a goroutine or a slot, and HTTP/2 and HTTP/3
// servers allow a few hundred streams per connection (nginx 128, Go 250),
// so -m 100000000 only grew memory until the process was killed.
const maxInFlight = 100000

// fdReserve is the descriptors kept back from -c for the process itself:
// standard streams, the poller, files and the server's /proc entries.
const fdReserve = 64

// maxConns returns how many connections this machine lets one client open
// to one server, and why: each takes a file descriptor and, to the same
// address and port, a local port of its own. A -c beyond it cannot run,
// and each connection also costs a goroutine and a 64 KiB read buffer, so
// -c 100000000 would exhaust memory before the first request.
func maxConns() (int, string) {
	n, why := 1<<20, ""
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && lim.Cur > fdReserve && lim.Cur-fdReserve < uint64(n) {
		n = int(lim.Cur - fdReserve)
		why = fmt.Sprintf("the open-file limit is %d (ulimit -n) and each connection takes a descriptor", lim.Cur)
	}
	if ports, ok := localPorts(); ok && ports < n {
		n = ports
		why = fmt.Sprintf("the machine gives %d local ports to the connections to one address (net.ipv4.ip_local_port_range)", ports)
	}
	return n, why
}

// localPorts reads the size of the ephemeral port range.
func localPorts() (int, bool) {
	data, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) != 2 {
		return 0, false
	}
	lo, err1 := strconv.Atoi(f[0])
	hi, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || hi < lo {
		return 0, false
	}
	return hi - lo + 1, true
}

// checkLimits refuses a -c or -t past what the machine can run.
func (f benchFlags) checkLimits() error {
	if f.threads > maxThreads {
		return usagef("-t %d: want at most %d (threads past the cores add no parallelism)", f.threads, maxThreads)
	}
	for _, c := range []struct {
		flag string
		n    int
	}{{"-m", f.streams}, {"--pipeline", f.pipeline}} {
		if c.n > maxInFlight {
			return usagef("%s %d: want at most %d", c.flag, c.n, maxInFlight)
		}
	}
	if n, why := maxConns(); f.conns > n {
		return withHint(usagef("-c %d: want at most %d: %s", f.conns, n, why),
			"use fewer connections, or more streams per connection (-m) with --http2")
	}
	// -c is at most 1<<20 and the others maxInFlight here: the product
	// fits an int64.
	if n := int64(f.conns) * int64(f.streams) * int64(f.pipeline); n > maxInFlight {
		return withHint(usagef("-c %d with %d in flight per connection: %d requests at once, want at most %d", f.conns, f.streams*f.pipeline, n, maxInFlight),
			"fewer connections or fewer streams per connection")
	}
	return nil
}
