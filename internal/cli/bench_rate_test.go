package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBenchRate checks --rate as users type it: a word is refused saying
// what a rate is (it showed strconv.ParseFloat's text), a rate above
// what the pacer schedules is a usage error, and --rate 1e8 -d 1s ends
// with its second (it ran past 4 s), saying what -c could hold.
func TestBenchRate(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	url := s.HTTPURL + "/"
	tests := []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{args: []string{"--rate", "abc"}, code: ExitUsage, stderr: `"-R, --rate" flag: want requests per second, a number such as 1000 or 2.5e3`},
		{args: []string{"--rate", "NaN"}, code: ExitUsage, stderr: "want requests per second"},
		{args: []string{"--rate", "-5"}, code: ExitUsage, stderr: "want 0 (the closed model) or a positive number"},
		{args: []string{"--rate", "1e12"}, code: ExitUsage, stderr: "want at most 1e+09 requests per second"},
		{args: []string{"--rate", "1e999"}, code: ExitUsage, stderr: "want at most 1e+09 requests per second"},
		{args: []string{"--rate", "1e8", "-d", "1s"}, code: ExitOK, stdout: "raise -c to"},
	}
	for _, tt := range tests {
		start := time.Now()
		code, stdout, stderr := run(t, context.Background(), append([]string{"bench", url}, tt.args...)...)
		if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("httpslab bench %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
				tt.args, code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
		}
		if took := time.Since(start); took > 3*time.Second {
			t.Errorf("httpslab bench %q took %v; want at most its -d and a little", tt.args, took)
		}
	}
}
