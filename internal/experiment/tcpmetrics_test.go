//go:build !race

// This test builds an emulated link (root, a network namespace): a heavy
// integration test that scripts/test.sh runs once, without the race
// detector.

package experiment

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/netem"
)

// TestFlushTCPMetricsBehindLink checks that the flush between variants
// reaches the server's end of the link: after a download through it, the
// namespace caches the client's metrics (the server was the sender), and
// flushTCPMetrics leaves none there.
func TestFlushTCPMetricsBehindLink(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	link, err := netem.Start(ctx, netem.Config{RTT: 10 * time.Millisecond})
	if err != nil {
		t.Fatalf("building the link: %v", err)
	}
	defer link.Close()
	ln, err := link.Listen(ctx, "tcp", net.JoinHostPort(link.ServerIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write(make([]byte, 256<<10))
			c.Close()
		}
	}()
	c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Fatal(err)
	}
	c.Close()
	client := link.ClientIP.String()
	cached := func() string {
		// The kernel saves a connection's metrics when it is closed.
		out, err := exec.Command("ip", "-n", link.Namespace, "tcp_metrics", "show", client).CombinedOutput()
		if err != nil && !nothingCached(out) {
			t.Fatalf("ip -n %s tcp_metrics show %s: %v %s", link.Namespace, client, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(cached(), client) {
		if time.Now().After(deadline) {
			t.Fatalf("no TCP metrics cached for %s in %s after a download; the test cannot tell a flush", client, link.Namespace)
		}
		time.Sleep(50 * time.Millisecond)
	}
	target := Target{URL: fmt.Sprintf("http://%s/", ln.Addr())}
	if got := flushTCPMetrics(ctx, target, link.Namespace); got != "flushed on both ends between variants" {
		t.Errorf("flushTCPMetrics = %q; want flushed on both ends", got)
	}
	if out := cached(); strings.Contains(out, client) {
		t.Errorf("after the flush the server's namespace still caches %s: %s", client, out)
	}
}
