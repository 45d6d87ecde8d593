package cli

import (
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
	// started reports a real sign that the run is under way, so that
	// interruptible has registered before the signal is sent: a signal
	// sent earlier goes to the guard channel and the run goes on.
	tests := []struct {
		name    string
		args    []string
		started func(before lab.Stats, out string) bool
		wantOut string
	}{
		{"probe -n", []string{"probe", srv.HTTPSURL + "/delay/300ms", "--cacert", ca, "-n", "20"},
			func(before lab.Stats, _ string) bool { return srv.Stats().Requests-before.Requests >= 2 }, " to " + srv.HTTPSURL + "/delay/300ms\n"},
		{"probe -w", []string{"probe", srv.HTTPSURL + "/delay/300ms", "--cacert", ca, "-n", "20", "-w", "%{http_code}\n"},
			func(before lab.Stats, _ string) bool { return srv.Stats().Requests-before.Requests >= 2 }, "200\n"},
		// --json marks the document as interrupted, as bench and compare do.
		{"probe --json", []string{"probe", srv.HTTPSURL + "/delay/300ms", "--cacert", ca, "-n", "20", "--json"},
			func(before lab.Stats, _ string) bool { return srv.Stats().Requests-before.Requests >= 2 }, `"interrupted": true`},
		// A request cut by Ctrl-C is curl's "aborted" (42), not a
		// timeout, though its read ends by a deadline.
		{"probe -w, one request", []string{"probe", srv.HTTPSURL + "/delay/5s", "--cacert", ca, "-w", "%{http_code} %{exitcode}"},
			func(before lab.Stats, _ string) bool { return srv.Stats().Requests-before.Requests >= 1 }, "000 42"},
		{"demo", []string{"demo", "--runs", "200", "--no-audit", "--bench-time", "0"},
			func(lab.Stats, string) bool { return listening.Load() > 0 }, "HTTP/1.1 plain"},
		{"audit", []string{"audit", srv.HTTPSURL + "/", "--cacert", ca, "--attempts", "1000", "--concurrency", "1"},
			// An audit interrupted before its first handshake is done has
			// nothing to report, and every other check starts beside that
			// handshake: after 30 of the server's handshakes (the first
			// started before all of them) it is done.
			func(before lab.Stats, _ string) bool { return srv.Stats().Handshakes-before.Handshakes >= 30 }, "httpslab audit " + srv.HTTPSURL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Stats()
			var stdout, stderr syncBuffer
			done := make(chan int, 1)
			go func() { done <- Run(context.Background(), tt.args, &stdout, &stderr) }()
			waitStarted(t, tt.name, func() bool { return tt.started(before, stdout.String()) })
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

// waitStarted polls started for up to 10 s; a run that never shows a
// sign of starting fails the test here rather than swallowing the signal.
func waitStarted(t *testing.T, name string, started func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !started(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s showed no sign of running within 10s", name)
		}
	}
}
