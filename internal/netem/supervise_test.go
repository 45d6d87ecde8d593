package netem

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestSupervise runs real commands outside any namespace: Supervise only
// waits and signals, so its exit statuses and signal passing do not need
// a link.
func TestSupervise(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script string
		signal os.Signal
		grace  time.Duration
		want   int
	}{
		{"exit 0", "exit 0", nil, time.Second, 0},
		{"exit code", "exit 3", nil, time.Second, 3},
		{"killed by a signal", "kill -TERM $$", nil, time.Second, 128 + int(syscall.SIGTERM)},
		// SIGUSR1, not SIGHUP: a test run under nohup passes SIGHUP on
		// ignored, and a shell cannot trap a signal ignored on entry.
		{"a passed-on signal", "trap 'exit 7' USR1; echo ready; while :; do sleep 0.05; done", syscall.SIGUSR1, time.Second, 7},
		{"killed after the grace", "trap '' TERM; echo ready; while :; do sleep 0.05; done", syscall.SIGTERM, 500 * time.Millisecond, 128 + int(syscall.SIGKILL)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := exec.Command("sh", "-c", tt.script)
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			sigs := make(chan os.Signal, 1)
			if tt.signal != nil {
				// The shell says ready once its trap is set.
				if _, err := out.Read(make([]byte, 6)); err != nil {
					t.Fatal(err)
				}
				sigs <- tt.signal
			}
			killed := false
			code, err := Supervise(c, sigs, false, tt.grace, func() { killed = true })
			if err != nil || code != tt.want {
				t.Fatalf("Supervise = %d, %v; want %d", code, err, tt.want)
			}
			if want := tt.want == 128+int(syscall.SIGKILL); killed != want {
				t.Errorf("onKill called: %v; want %v", killed, want)
			}
		})
	}
}
