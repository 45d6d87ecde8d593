package experiment

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
)

// flushTCPMetrics drops the kernel's cached TCP metrics (RTT, congestion
// window, slow-start threshold) on both ends of the target's connections,
// so that one variant's do not carry into the next, and says whether it
// could. The client's end is this host's entry for the server's address;
// the server's end, behind the emulated link, is in the link's namespace
// netns, which outlives every server started in it: there a download's
// sender, the server, keeps what it learnt of the client between runs.
func flushTCPMetrics(ctx context.Context, t Target, netns string) string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return "not flushed: " + err.Error()
	}
	addrs, err := t.dialer().Lookup(ctx, transport.HostPort(u))
	if err != nil {
		return "not flushed: " + err.Error()
	}
	var cmds [][]string
	for _, a := range addrs {
		cmds = append(cmds, []string{"ip", "tcp_metrics", "flush", a.Addr().Unmap().String()})
	}
	if netns != "" {
		cmds = append(cmds, []string{"ip", "-n", netns, "tcp_metrics", "flush", "all"})
	}
	for _, argv := range cmds {
		out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
		if err != nil && !nothingCached(out) {
			return fmt.Sprintf("not flushed: %s: %v %s", strings.Join(argv, " "), err, bytes.TrimSpace(out))
		}
	}
	if netns != "" {
		return "flushed on both ends between variants"
	}
	return "flushed between variants"
}

// nothingCached reports ip's answer when the kernel holds no metrics for
// the address (ESRCH, "No such process"): nothing to flush, not a failure.
func nothingCached(out []byte) bool {
	return bytes.Contains(out, []byte("No such process"))
}
