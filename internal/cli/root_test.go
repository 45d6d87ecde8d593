package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// run executes the command line in-process and returns its exit code and output.
func run(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRootUsageErrors(t *testing.T) {
	tests := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{"nosuchcommand"}, ExitUsage, `unknown command "nosuchcommand"`},
		{[]string{"version", "extra"}, ExitUsage, `unknown command "extra"`},
		{[]string{"serve", "--no-such-flag"}, ExitUsage, "unknown flag: --no-such-flag"},
		{[]string{"serve", "--cert", "dsa-1024"}, ExitUsage, `unknown certificate kind "dsa-1024"`},
		{[]string{"serve", "--tls-max", "1.4"}, ExitUsage, `unknown TLS version "1.4"`},
		{[]string{"serve", "--tls-min", "1.3", "--tls-max", "1.2"}, ExitUsage, "TLS minimum TLS 1.3 is above the maximum TLS 1.2"},
		{[]string{"serve", "--https-port", "-5"}, ExitUsage, "--https-port -5: want a port from 1 to 65535"},
	}
	for _, tt := range tests {
		code, _, stderr := run(t, context.Background(), tt.args...)
		if code != tt.wantCode {
			t.Errorf("Run(%q) = %d; want %d (stderr %q)", tt.args, code, tt.wantCode, stderr)
		}
		if !strings.HasPrefix(stderr, "httpslab: error: ") || !strings.Contains(stderr, tt.wantErr) {
			t.Errorf("Run(%q) stderr = %q; want an httpslab error containing %q", tt.args, stderr, tt.wantErr)
		}
	}
}

func TestVersion(t *testing.T) {
	_, want, _ := run(t, context.Background(), "version")
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, stdout, stderr := run(t, context.Background(), args...)
		if code != ExitOK || !strings.HasPrefix(stdout, "httpslab ") || strings.Count(stdout, "\n") != 1 || stderr != "" {
			t.Errorf("%v = %d, %q, %q; want 0 and one line starting with httpslab", args, code, stdout, stderr)
		}
		if stdout != want {
			t.Errorf("%v printed %q; version printed %q", args, stdout, want)
		}
	}
}

func TestDemoUsage(t *testing.T) {
	if code, _, _ := run(t, context.Background(), "demo", "--runs", "0"); code != ExitUsage {
		t.Errorf("demo --runs 0 = %d; want %d", code, ExitUsage)
	}
}
