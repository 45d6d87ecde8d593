package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBenchInterruptBySignal sends this process a real SIGINT during
// bench runs: a long -d run, the same with --json, and a run whose
// connections a stalled server accepts and never answers. Each must stop
// at once, print its partial report with no error counted for the
// requests cut short, and exit with 130.
func TestBenchInterruptBySignal(t *testing.T) {
	guard := make(chan os.Signal, 8)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	stalled := labtest.NewMisbehaving(t, labtest.Silent)
	tests := []struct {
		name    string
		args    []string
		started func(before int64) bool
		json    bool
	}{
		{"long -d", []string{srv.HTTPURL + "/", "-d", "30s", "-c", "4", "--conn", "new"},
			func(before int64) bool { return srv.Stats().Requests-before >= 20 }, false},
		{"long -d --json", []string{srv.HTTPURL + "/", "-d", "30s", "-c", "2", "--http2", "--json"},
			func(before int64) bool { return srv.Stats().Requests-before >= 20 }, true},
		{"stalled", []string{stalled.URL(), "-d", "30s", "-c", "4"},
			// an accepted connection is a sign that the run is under way
			func(int64) bool { return stalled.Accepted() >= 1 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Stats().Requests
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			start := time.Now()
			go func() { done <- Run(context.Background(), append([]string{"bench"}, tt.args...), &stdout, &stderr) }()
			// A signal sent before the run's interruptible registered
			// would go to the guard channel: wait for a real sign of it.
			waitStarted(t, tt.name, func() bool { return tt.started(before) })
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			var code int
			select {
			case code = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s did not stop within 10s of SIGINT", tt.name)
			}
			if code != ExitInterrupted || time.Since(start) > 8*time.Second || !strings.Contains(stderr.String(), "httpslab: interrupted") {
				t.Errorf("%s after SIGINT = %d after %v; want %d at once and 'interrupted'\nstderr: %s", tt.name, code, time.Since(start), ExitInterrupted, stderr.String())
			}
			checkPartial(t, tt.name, stdout.Bytes(), tt.json)
		})
	}
}

// checkPartial checks a partial bench report: marked interrupted, with
// no failed request, lasting more than 0 s.
func checkPartial(t *testing.T, name string, out []byte, asJSON bool) {
	t.Helper()
	if asJSON {
		var env struct {
			Result struct {
				Interrupted bool    `json:"interrupted"`
				Errors      int64   `json:"errors"`
				Elapsed     float64 `json:"elapsed_s"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &env); err != nil || !env.Result.Interrupted || env.Result.Errors != 0 || env.Result.Elapsed <= 0 {
			t.Errorf("%s: JSON %+v (error %v); want interrupted, no errors, elapsed > 0:\n%s", name, env.Result, err, out)
		}
		return
	}
	s := string(out)
	if !strings.Contains(s, "Interrupted:     yes, a partial report") || !strings.Contains(s, " 0 failed (0%)") || strings.Contains(s, "Time taken:      0.000 s") {
		t.Errorf("%s: report not a partial one with no failures and a duration:\n%s", name, s)
	}
}
