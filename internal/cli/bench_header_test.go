package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBenchMaxHeaderSize checks --max-header-size against a server whose
// responses carry 2 KiB of header: the default limit (1 MiB) reads them,
// --max-header-size 1k fails each request, counted, with a hint that
// names the flag, and a size curl would not take is a usage error.
func TestBenchMaxHeaderSize(t *testing.T) {
	addr := labtest.NewMisbehaving(t, labtest.Answer("HTTP/1.1 200 OK\r\nX-Pad: "+strings.Repeat("p", 2048)+"\r\nContent-Length: 2\r\n\r\nok")).Addr
	url := "http://" + addr + "/"
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{args: []string{"-n", "3"}, code: ExitOK, stdout: "3 completed, 0 failed"},
		{args: []string{"-n", "3", "--max-header-size", "4K"}, code: ExitOK, stdout: "3 completed, 0 failed"},
		{args: []string{"-n", "3", "--max-header-size", "1k"}, code: ExitFailure, stdout: "response header over the limit of 1 KiB",
			stderr: "every request failed\nhttpslab: hint: the server sent more response header than --max-header-size allows"},
		{args: []string{"-n", "3", "--max-header-size", "1.5m"}, code: ExitUsage, stderr: `invalid argument "1.5m" for "--max-header-size"`},
		{args: []string{"-n", "3", "--max-header-size", "0"}, code: ExitUsage, stderr: "want a size from 1KiB to 1GiB"},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(t, context.Background(), append([]string{"bench", url}, tt.args...)...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("httpslab bench %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
				tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}
