package machine

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestParseProcStat(t *testing.T) {
	line := "1234 (nginx: worker (x)) S 1 1234 1234 0 -1 4194624 100 0 0 0 250 75 0 0 20 0 1 0 100 0 0"
	u, s, err := parseProcStat(line)
	if err != nil || u != 2500*time.Millisecond || s != 750*time.Millisecond {
		t.Errorf("parseProcStat = %v, %v, %v; want 2.5s, 750ms, nil", u, s, err)
	}
	if _, _, err := parseProcStat("1234 (x) S 1"); err == nil {
		t.Errorf("parseProcStat(short line) succeeded; want an error")
	}
}

func TestCountCPUList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"0", 1}, {"0-1", 2}, {"0-3,8,10-11", 7}, {"", 0}, {"3-1", 0}, {"x", 0}, {"0-", 0}, {"-1", 0},
	} {
		if got := countCPUList(tt.in); got != tt.want {
			t.Errorf("countCPUList(%q) = %d; want %d", tt.in, got, tt.want)
		}
	}
}

// TestProcessCores reads this test process: it has several threads and may
// run on the CPUs of its affinity mask.
func TestProcessCores(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	if got, want := threadCores(os.Getpid()), set.Count(); got < 1 || got > want {
		t.Errorf("threadCores(self) = %d; want 1 to the %d CPUs of the affinity mask", got, want)
	}
	if got := ProcessCores(-1); got != 1 {
		t.Errorf("ProcessCores of no process = %v; want 1", got)
	}
}

// TestChildrenAndTimes starts a child and finds it among this process's
// children, with CPU times that can be read. After it ended and before it
// is reaped (as a killed lab whose parent reaps late) it is a zombie and
// counts as gone, so that netem.CleanStale removes its namespace; reaped,
// it is gone too.
func TestChildrenAndTimes(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	if kids := Children(os.Getpid()); !slices.Contains(kids, pid) {
		t.Errorf("Children(self) = %v; want it to hold %d", kids, pid)
	}
	if _, _, err := ProcessTimes(pid); err != nil {
		t.Errorf("ProcessTimes(child): %v", err)
	}
	if !ProcessExists(pid) || !Alive(pid) {
		t.Errorf("ProcessExists, Alive(child) = %v, %v; want true, true", ProcessExists(pid), Alive(pid))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Killed and not reaped: wait for the kernel to make it a zombie.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if Alive(pid) {
		t.Errorf("Alive(zombie) = true; want false")
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the killed child exited 0")
	}
	if Alive(pid) || !Alive(os.Getpid()) {
		t.Errorf("Alive(reaped child), Alive(self) = %v, %v; want false, true", Alive(pid), Alive(os.Getpid()))
	}
	if ProcessExists(-1) || Alive(1<<30) {
		t.Error("a process that cannot exist exists")
	}
	if _, _, err := ProcessTimes(-1); err == nil {
		t.Error("ProcessTimes(-1) succeeded; want an error")
	}
}
