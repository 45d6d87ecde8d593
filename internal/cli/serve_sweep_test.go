package cli

import (
	"bytes"
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeSweep starts serve with bad or conflicting values: each ends
// at once with its exit code and a message naming the flag or the port,
// and none leaves a server listening on more than loopback.
func TestServeSweep(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := strconv.Itoa(busy.Addr().(*net.TCPAddr).Port)
	unwritable := filepath.Join(t.TempDir(), "no-such-dir", "ca.pem")
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--http-port", "-1"}, ExitUsage, "--http-port -1: want a port from 1 to 65535"},
		{[]string{"--https-port", "99999"}, ExitUsage, "--https-port 99999: want a port from 1 to 65535"},
		{[]string{"--http-port", "18555", "--https-port", "18555"}, ExitUsage, "are both 18555"},
		{[]string{"--host", "0.0.0.0"}, ExitUsage, `--host "0.0.0.0": want a loopback address`},
		{[]string{"--host", "::"}, ExitUsage, "want a loopback address"},
		{[]string{"--host", "example.com"}, ExitUsage, "want a loopback address"},
		{[]string{"--cert", "dsa"}, ExitUsage, "unknown certificate kind"},
		{[]string{"--tls-min", "1.3", "--tls-max", "1.2"}, ExitUsage, "above the maximum"},
		{[]string{"--http-port", port}, ExitFailure, "127.0.0.1:" + port + ": bind: address already in use"},
		{[]string{"--https-port", port}, ExitFailure, "hint: pick other ports"},
		{[]string{"--ca-out", unwritable, "--no-http3"}, ExitFailure, "hint: give --ca-out a file in a directory you can write to"},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var stdout, stderr bytes.Buffer
		args := append([]string{"serve"}, tt.args...)
		code := Run(ctx, args, &stdout, &stderr)
		timedOut := ctx.Err() != nil
		cancel()
		if timedOut || code != tt.code || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("httpslab %q = %d (timed out %v)\nstderr:\n%s\nwant %d at once, stderr with %q",
				args, code, timedOut, stderr.String(), tt.code, tt.stderr)
		}
	}
}
