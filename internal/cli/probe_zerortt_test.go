//go:build !race

// These tests make 0-RTT requests over HTTP/3, which quic-go races on
// with itself (quic-go issue #4303, open; see demo_test.go): they run in
// the test suite's pass without the race detector.

package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

func TestProbeZeroRTT(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{})
	u := srv.HTTPSURL + "/"
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"one", []string{u, "--cacert", ca, "--0rtt"}, []string{"HTTP/3.0", "request sent as 0-RTT early data"}},
		{"count", []string{u, "--cacert", ca, "--0rtt", "-n", "3"},
			[]string{"TLS resumed 2 of 3 handshakes, 0-RTT accepted in 2", "overlap the TLS phase", "0-RTT saved", "full (1) vs"}},
	} {
		code, stdout, stderr := run(t, context.Background(), append([]string{"probe"}, tt.args...)...)
		if code != ExitOK {
			t.Fatalf("%s: probe %q = %d; want %d\nstdout:\n%s\nstderr:\n%s", tt.name, tt.args, code, ExitOK, stdout, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", tt.name, w, stdout)
			}
		}
	}
}
