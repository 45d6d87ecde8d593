package machine_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/machine"
)

// TestCPUQuotaReal puts a process into a new cgroup of this machine's cpu
// hierarchy with a quota of 0.3 cores and reads it back.
func TestCPUQuotaReal(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	own, ownOK := machine.CPUQuota(os.Getpid())
	if got, ok := machine.CPUQuota(cmd.Process.Pid); got != own || ok != ownOK {
		t.Fatalf("before joining a cgroup: quota %v, %v; want this process's %v, %v", got, ok, own, ownOK)
	}
	labtest.LimitCPU(t, 0.3, cmd.Process.Pid)
	want := 0.3
	if ownOK {
		want = min(want, own)
	}
	if got, ok := machine.CPUQuota(cmd.Process.Pid); !ok || got != want {
		t.Errorf("CPUQuota = %v, %v; want %v cores", got, ok, want)
	}
}
