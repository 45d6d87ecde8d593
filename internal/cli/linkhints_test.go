package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestLinkUsageHints: a jitter above the RTT and a lab without a command
// are usage errors whose hint says what to give (they ended with cobra's
// 'requires at least 1 arg(s)' and the generic pointer to --help).
func TestLinkUsageHints(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--jitter", "10ms"}, "hint: the jitter varies the RTT around its value: give --rtt at least as large as --jitter"},
		{[]string{"lab", "--rtt", "10ms", "--jitter", "20ms", "--", "true"}, "give --rtt at least as large as --jitter"},
		{[]string{"lab", "--rtt", "10ms"}, "hint: put it after the link flags and --: httpslab lab --rtt 50ms -- COMMAND"},
	}
	for _, tt := range tests {
		var errb bytes.Buffer
		code := Run(context.Background(), tt.args, io.Discard, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("Run(%q) = %d, %q; want %d and %q", tt.args, code, errb.String(), ExitUsage, tt.want)
		}
	}
}
