package machine

import (
	"os"
	"testing"
	"time"
)

func TestParseSchedstat(t *testing.T) {
	if got, err := parseSchedstat("183244242 16305231 414\n"); err != nil || got != 183244242*time.Nanosecond {
		t.Errorf("parseSchedstat = %v, %v; want 183.244242ms", got, err)
	}
	for _, bad := range []string{"", "x 1 2", "-5 1 2"} {
		if _, err := parseSchedstat(bad); err == nil {
			t.Errorf("parseSchedstat(%q) = nil error; want one", bad)
		}
	}
}

// TestProcessRuntime checks that this process's run time grows with work
// as getrusage says it does. The spinning thread sleeps before the
// reading: a running thread's time is added when it leaves the CPU.
func TestProcessRuntime(t *testing.T) {
	before, err := ProcessRuntime(os.Getpid())
	if err != nil {
		t.Skip(err) // a kernel without schedstat
	}
	u0, s0 := OwnCPU()
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	u1, s1 := OwnCPU()
	time.Sleep(20 * time.Millisecond)
	after, err := ProcessRuntime(os.Getpid())
	own := u1 + s1 - u0 - s0
	if err != nil || after-before < own/2 || after-before > 2*own+20*time.Millisecond {
		t.Errorf("run time grew by %v (%v) while getrusage grew by %v; want them close", after-before, err, own)
	}
	if _, err := ProcessRuntime(-1); err == nil {
		t.Error("ProcessRuntime(-1) = nil error; want one")
	}
}
