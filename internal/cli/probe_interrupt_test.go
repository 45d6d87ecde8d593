package cli

import (
	"bytes"
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestInterruptBySignal sends this process a real SIGINT while probe,
// audit and demo run, with a parent context that never learns of it (as
// when the process-wide signal context has not seen the signal yet): each
// must print its partial report and exit with 130, not 1.
func TestInterruptBySignal(t *testing.T) {
	// Keep a stray SIGINT from ending the test binary between runs.
	guard := make(chan os.Signal, 8)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	tests := []struct {
		name    string
		args    []string
		started func(before int64) bool
		wantOut string
	}{
		{"probe -n", []string{"probe", srv.HTTPSURL + "/delay/300ms", "--cacert", ca, "-n", "20"},
			func(before int64) bool { return srv.Stats().Requests-before >= 2 }, "requests to " + srv.HTTPSURL},
		{"probe -w", []string{"probe", srv.HTTPSURL + "/delay/300ms", "--cacert", ca, "-n", "20", "-w", "%{http_code}\n"},
			func(before int64) bool { return srv.Stats().Requests-before >= 2 }, "200\n"},
		{"demo", []string{"demo", "--runs", "200", "--no-audit", "--bench-time", "0"}, nil, "HTTP/1.1 plain"},
		{"audit", []string{"audit", srv.HTTPSURL + "/", "--cacert", ca, "--attempts", "1000", "--concurrency", "1"}, nil, "httpslab audit " + srv.HTTPSURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Stats().Requests
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- Run(context.Background(), tt.args, &stdout, &stderr) }()
			deadline := time.Now().Add(10 * time.Second)
			for tt.started != nil && !tt.started(before) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if tt.started == nil {
				time.Sleep(500 * time.Millisecond)
			}
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			select {
			case code := <-done:
				if code != ExitInterrupted || !strings.Contains(stderr.String(), "httpslab: interrupted") {
					t.Errorf("%s after SIGINT = %d, stderr %q; want %d and 'interrupted'", tt.name, code, stderr.String(), ExitInterrupted)
				}
				if !strings.Contains(stdout.String(), tt.wantOut) {
					t.Errorf("%s after SIGINT: stdout lacks the partial report %q:\n%s", tt.name, tt.wantOut, stdout.String())
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("%s did not stop within 10s of SIGINT", tt.name)
			}
		})
	}
}
