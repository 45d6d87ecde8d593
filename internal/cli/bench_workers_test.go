package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
)

// TestBenchWorkers runs bench as two of three workers of one run and
// checks their shares and run objects, and the errors of workers that
// cannot run: each with its exit code and a hint.
func TestBenchWorkers(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	u := s.HTTPSURL + "/"
	run := func(env string, args ...string) (int, string, string) {
		t.Setenv(load.IndexEnv, env)
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), append([]string{"bench", u, "--cacert", ca}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	type runJSON struct {
		Result struct {
			Requests int64 `json:"requests"`
			Conns    int   `json:"connections"`
			Run      struct {
				StartedAt  time.Time `json:"started_at"`
				Worker     *struct{ Index, Count int }
				ConfigHash string `json:"config_hash"`
			} `json:"run"`
		} `json:"result"`
	}
	at := time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano)
	var docs []runJSON
	for _, w := range []struct{ flag, env string }{{"--index=0", ""}, {"", "2"}} {
		// The second worker starts after the first has run: within a grace
		// of 10 s on a busy machine.
		args := []string{"-n", "10", "-c", "5", "--workers", "3", "--start-at", at, "--start-grace", "10s", "--json"}
		if w.flag != "" {
			args = append(args, w.flag)
		}
		code, stdout, stderr := run(w.env, args...)
		var doc runJSON
		if err := json.Unmarshal([]byte(stdout), &doc); code != ExitOK || err != nil {
			t.Fatalf("worker %s%s: exit %d, %v; stderr:\n%s", w.flag, w.env, code, err, stderr)
		}
		docs = append(docs, doc)
	}
	for i, want := range []struct{ index, requests, conns int }{{0, 4, 2}, {2, 3, 1}} {
		r := docs[i].Result
		if r.Run.Worker == nil || r.Run.Worker.Index != want.index || r.Run.Worker.Count != 3 || r.Requests != int64(want.requests) || r.Conns != want.conns {
			t.Errorf("worker %d: %+v, %d requests on %d connections; want worker %d of 3, %d on %d", i, r.Run.Worker, r.Requests, r.Conns, want.index, want.requests, want.conns)
		}
		if start, _ := time.Parse(time.RFC3339Nano, at); r.Run.StartedAt.Before(start) {
			t.Errorf("worker %d started at %v, before --start-at %s", i, r.Run.StartedAt, at)
		}
	}
	if a, b := docs[0].Result.Run.ConfigHash, docs[1].Result.Run.ConfigHash; a != b || a == "" {
		t.Errorf("config_hash %q and %q; want the same for two workers of one run", a, b)
	}

	for _, tc := range []struct {
		env    string
		args   []string
		code   int
		stderr []string
	}{
		{"", []string{"--workers", "3", "--index", "3"}, ExitUsage, []string{`httpslab: error: --index "3": want an index from 0 to 2`}},
		{"", []string{"--workers", "3"}, ExitUsage, []string{"--workers 3 without --index", "httpslab: hint: give --index I (0 to 2), or set JOB_COMPLETION_INDEX"}},
		{"7", []string{"--workers", "3"}, ExitUsage, []string{`JOB_COMPLETION_INDEX "7": want an index from 0 to 2`}},
		{"", []string{"--index", "1"}, ExitUsage, []string{"--index 1 without --workers"}},
		{"1", []string{"--workers", "3", "-c", "2"}, ExitUsage, []string{"-c 2 across 3 workers: every worker needs at least 1", "httpslab: hint: -c, -n and --rate are totals"}},
		{"1", []string{"--workers", "3", "-n", "2"}, ExitUsage, []string{"-n 2 across 3 workers"}},
		{"1", []string{"--workers", "3", "--rate", "2"}, ExitUsage, []string{"--rate 2 across 3 workers"}},
		{"", []string{"--start-at", "noon"}, ExitUsage, []string{`--start-at: start time "noon"`, "httpslab: hint: give every worker the same time"}},
		{"", []string{"--start-at", "+1s", "--start-grace", "-1s"}, ExitUsage, []string{"--start-grace -1s"}},
		{"", []string{"-n", "5", "--start-at", time.Now().Add(-3 * time.Second).UTC().Format(time.RFC3339)}, ExitFailure,
			[]string{"httpslab: error: start at ", "more than the grace of 1s", "httpslab: hint: start the workers with a later --start-at"}},
	} {
		code, stdout, stderr := run(tc.env, tc.args...)
		if code != tc.code || stdout != "" {
			t.Errorf("bench %q (%s=%q) = exit %d, stdout %q; want %d and none", tc.args, load.IndexEnv, tc.env, code, stdout, tc.code)
		}
		for _, want := range tc.stderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("bench %q: stderr %q; want %q", tc.args, stderr, want)
			}
		}
	}
}

// TestBenchInterruptWaitingForStart sends SIGINT to a bench waiting for
// its --start-at: it ends at once with 130, having sent nothing.
func TestBenchInterruptWaitingForStart(t *testing.T) {
	guard := make(chan os.Signal, 8)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"bench", srv.HTTPURL + "/", "-n", "10", "--start-at", "+30s"}, &stdout, &stderr)
	}()
	waitStarted(t, "bench --start-at +30s", func() bool { return listening.Load() > 0 })
	time.Sleep(200 * time.Millisecond) // past the set-up, into the wait
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case code := <-done:
		if code != ExitInterrupted || stdout.Len() != 0 || !strings.Contains(stderr.String(), "httpslab: interrupted") || srv.Stats().Requests != 0 {
			t.Errorf("SIGINT while waiting: exit %d, stdout %q, stderr %q, %d requests sent; want %d, nothing sent", code, stdout.String(), stderr.String(), srv.Stats().Requests, ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bench waiting for --start-at did not stop within 10s of SIGINT")
	}
}
