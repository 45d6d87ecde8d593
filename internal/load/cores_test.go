package load

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestClientCoresAtMostCPUs checks that more threads than CPUs (-t 8 on
// 2 cores) do not count as more cores: the report said "client used 11%
// of 8 core(s)" on a 2-core machine, and a client that kept both cores
// busy could never be named the limit.
func TestClientCoresAtMostCPUs(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + 6))
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPURL + "/"}}, Requests: 10})
	if got, want := res.CPU.ClientCores, runtime.NumCPU(); got != want {
		t.Errorf("GOMAXPROCS %d on %d CPUs: client cores %d; want %d", runtime.GOMAXPROCS(0), want, got, want)
	}
}

// TestClientQuota holds this process, the client, to half a core with a
// cgroup CPU quota, as docker --cpus 0.5 does, against an nginx that
// keeps its cores: the client at its quota is the limit. Its share
// counted against its 2 cores said "13% of 2 core(s)", and the Limit
// line advised more connections.
func TestClientQuota(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	labtest.LimitCPU(t, 0.5, os.Getpid())
	res := mustRun(t, Config{Targets: []Target{{URL: n.HTTPURL + "/1k.bin"}}, Conns: 8, Duration: 1500 * time.Millisecond,
		ServerPIDs: []int{n.PID()}})
	if res.CPU.ClientQuota != 0.5 {
		t.Fatalf("client quota %v cores; want 0.5", res.CPU.ClientQuota)
	}
	out := res.Limit()
	if !strings.Contains(out, "% of 0.5 core(s)") {
		t.Errorf("Limit line %q does not count the client's share against its quota", out)
	}
	if busy := res.CPU.busyMachine(); busy != "" && !res.CPU.ClientSaturated() {
		// Other processes kept the client from its quota: the line must
		// say so (or name the server, if it was saturated after all).
		t.Logf("the client used %.0f%% of its quota while %s", 100*res.CPU.ClientShare(), busy)
		if !strings.Contains(out, "the machine was busy ("+busy+")") && !res.CPU.ServerSaturated() {
			t.Errorf("the client did not reach its quota on a busy machine; want the Limit line to blame the machine:\n%s", out)
		}
		return
	}
	if !strings.HasPrefix(out, "the client (") || !strings.Contains(out, "raise the client's CPU quota") {
		t.Errorf("a client held to 0.5 cores used %.0f%% of them; want the Limit line to name it:\n%s", 100*res.CPU.ClientShare(), out)
	}
}
