package labtest

import (
	"os/exec"
	"testing"
	"time"
)

// TestWaitExit waits for a child that runs (it has not ended), then for
// the same child killed and not yet reaped (it has), then for a process
// that no longer exists.
func TestWaitExit(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if WaitExit(pid, 50*time.Millisecond) {
		t.Fatal("WaitExit(a running sleep) = true; want false after the timeout")
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if !WaitExit(pid, 10*time.Second) {
		t.Fatal("WaitExit(a killed child) = false; want true")
	}
	_ = cmd.Wait()
	if !WaitExit(pid, time.Second) {
		t.Error("WaitExit(a reaped child) = false; want true")
	}
}
