package load

import (
	"runtime"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestClientCoresAtMostCPUs checks that more threads than CPUs (-t 8 on
// 2 cores) do not count as more cores: the report said "client used 11%
// of 8 core(s)" on a 2-core machine, and a client that kept both cores
// busy could never be named the limit.
func TestClientCoresAtMostCPUs(t *testing.T) {
	s := lab.StartTestServer(t, lab.Config{NoHTTP3: true})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + 6))
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPURL + "/"}}, Requests: 10})
	if got, want := res.CPU.ClientCores, runtime.NumCPU(); got != want {
		t.Errorf("GOMAXPROCS %d on %d CPUs: client cores %d; want %d", runtime.GOMAXPROCS(0), want, got, want)
	}
}
