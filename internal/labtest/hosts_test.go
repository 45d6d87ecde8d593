package labtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestHosts builds a hub and two hosts, serves nginx in the hub, fetches
// from each host with curl and nginx logs each host's own address; once
// the test is over, no namespace is left.
func TestHosts(t *testing.T) {
	var h *Hosts
	t.Run("serve", func(t *testing.T) {
		h = StartHosts(t, 2)
		logFile := filepath.Join(t.TempDir(), "addr.log")
		n := StartNginx(t, h.Nginx(lab.NginxConfig{HTTPDirectives: "log_format addr '$remote_addr'; access_log " + logFile + " addr;"}))
		for _, ns := range h.Names {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			out, err := h.Cmd(ctx, ns, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", n.HTTPURL+"/").CombinedOutput()
			cancel()
			if err != nil || string(out) != "200" {
				t.Fatalf("curl from %s: %v: %s", ns, err, out)
			}
		}
		if _, err := WaitAccessLog(context.Background(), n, 2); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(logFile)
		if got, want := strings.Fields(string(data)), []string{h.IPs[0].String(), h.IPs[1].String()}; err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("nginx saw clients %q (%v); want %q", got, err, want)
		}
	})
	for _, ns := range append(h.Names, h.Hub) {
		if _, err := os.Stat(filepath.Join("/run/netns", ns)); !os.IsNotExist(err) {
			t.Errorf("namespace %s left behind (%v)", ns, err)
		}
	}
}
