package netem

import (
	"os"
	"os/exec"
	"testing"
)

// TestAliveZombie: a process that has ended but is not reaped yet (as a
// killed lab whose parent reaps late) counts as gone, so that CleanStale
// removes its namespace; a running process counts as alive.
func TestAliveZombie(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	if !eventually(func() bool { return !running(pid) }) {
		t.Fatalf("process %d did not end", pid)
	}
	// Not reaped yet: the process table still holds it as a zombie.
	if got := alive(pid); got {
		t.Errorf("alive(%d), a zombie = %v; want false", pid, got)
	}
	if got := alive(os.Getpid()); !got {
		t.Errorf("alive(own pid %d) = %v; want true", os.Getpid(), got)
	}
	cmd.Wait()
	if got := alive(pid); got {
		t.Errorf("alive(%d), reaped = %v; want false", pid, got)
	}
}
