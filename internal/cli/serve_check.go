package cli

import (
	"net/netip"
)

// checkListen refuses listen flags that the kernel would refuse later
// with a less helpful message, or that would expose the lab server: it
// is a target for measurements on this machine and listens on loopback
// only (behind an emulated link, on its address there).
func (f serveFlags) checkListen() error {
	for _, p := range []struct {
		flag string
		port int
	}{{"--http-port", f.httpPort}, {"--https-port", f.tlsPort}} {
		if p.port < 0 || p.port > 65535 {
			return usagef("%s %d: want a port from 1 to 65535, or 0 for a free one", p.flag, p.port)
		}
	}
	if f.httpPort != 0 && f.httpPort == f.tlsPort {
		return withHint(usagef("--http-port and --https-port are both %d: plain HTTP and HTTPS need a port each", f.httpPort),
			"pick two ports, or leave one out for a free one")
	}
	if f.host == "localhost" || f.host == "" {
		return nil
	}
	// 198.18.0.0/15 holds the emulated link's addresses: serve run behind
	// a link by another command (lab, experiment --server) listens on
	// its $HTTPSLAB_SERVER_IP there.
	if a, err := netip.ParseAddr(f.host); err != nil || !a.IsLoopback() && !linkRange.Contains(a) {
		return withHint(usagef("--host %q: want a loopback address (127.0.0.0/8 or ::1) or the emulated link's (198.18.0.0/15)", f.host),
			"the lab server is a local target; to put it behind a network, use --rtt and the other link flags")
	}
	return nil
}

// linkRange is the range set aside for network benchmarking, from which
// the emulated link takes its addresses.
var linkRange = netip.MustParsePrefix("198.18.0.0/15")
