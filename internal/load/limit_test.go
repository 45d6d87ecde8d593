package load

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/machine"
)

func TestLimitLine(t *testing.T) {
	busy := func(share float64) ProcBusy {
		return ProcBusy{PID: 77, CPU: time.Duration(share * float64(2*time.Second)), Cores: 1}
	}
	cpu := func(client float64, measured bool, server float64) CPU {
		return CPU{ClientUser: time.Duration(client * float64(2*time.Second)), ClientCores: 1, Wall: 2 * time.Second,
			ServerMeasured: measured, ServerBusiest: busy(server)}
	}
	tests := []struct {
		name string
		cpu  CPU
		rate float64
		want string // the start of the line; "" for no line
	}{
		{"server", cpu(0.6, true, 0.97), 0, "the server (process 77 at 97% of 1 core(s))"},
		{"client", cpu(0.95, true, 0.5), 0, "the client (95% of 1 core(s)): the server may hold more"},
		{"both", cpu(0.95, true, 0.95), 0, "both the client (95% of 1 core(s)) and the server (process 77 at 95%"},
		{"neither", cpu(0.35, true, 0.4), 0, "neither the client (35% of 1 core(s)) nor the server (process 77 at 40% of 1 core(s)): requests waited"},
		{"neither, busy machine", func() CPU {
			c := cpu(0.35, true, 0.4)
			c.Others, c.OthersMeasured = time.Second, true
			c.Steal, c.StealMeasured = machine.Steal{Stolen: 800 * time.Millisecond, Wall: 2 * time.Second, CPUs: 2}, true
			return c
		}(), 0, "neither the client (35% of 1 core(s)) nor the server (process 77 at 40% of 1 core(s)): the machine was busy " +
			"(other processes kept 0.50 cores busy and the hypervisor took 20% of its CPUs)"},
		{"client without server", cpu(0.92, false, 0), 0, "the client (92% of 1 core(s)), perhaps"},
		{"not the client", cpu(0.5, false, 0), 0, "not the client (50% of 1 core(s)); --server-pid"},
		{"open model", cpu(0.95, true, 0.95), 1000, ""},
		{"short run", CPU{ClientUser: 90 * time.Millisecond, ClientCores: 1, Wall: 100 * time.Millisecond}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleResult()
			r.Config.Rate, r.CPU = tt.rate, tt.cpu
			got := r.limitLine()
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("limit line %q; want it to start with %q", got, tt.want)
			}
			if out := reportText(t, r); strings.Contains(out, "Limit:") != (tt.want != "") {
				t.Errorf("report:\n%s\nwant a Limit line: %v", out, tt.want != "")
			}
		})
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

// TestProcCores reads this test process: it has several threads and may
// run on the CPUs of its affinity mask, which GOMAXPROCS follows.
func TestProcCores(t *testing.T) {
	if got, want := procCores(os.Getpid()), runtime.GOMAXPROCS(0); got < 1 || got > want {
		t.Errorf("procCores(self) = %d; want 1 to %d", got, want)
	}
	if got := procCores(-1); got != 1 {
		t.Errorf("procCores of no process = %d; want 1", got)
	}
}

// TestServerBusiestNginx loads a real nginx given by its master's PID:
// the busiest process is the worker, which has one thread, and the report
// names the limit.
func TestServerBusiestNginx(t *testing.T) {
	n := lab.StartTestNginx(t, lab.NginxConfig{})
	res := mustRun(t, Config{Targets: []Target{{URL: n.HTTPURL + "/1k.bin"}}, Conns: 8, Duration: 1200 * time.Millisecond,
		ServerPIDs: []int{n.PID()}})
	b := res.CPU.ServerBusiest
	if workers := n.WorkerPIDs(); !slices.Contains(workers, b.PID) {
		t.Errorf("busiest server process %d; want one of the workers %v", b.PID, workers)
	}
	if b.Cores != 1 || b.CPU <= 0 || b.Share(res.CPU.Wall) > 1+float64(2*clockTick)/float64(res.CPU.Wall) {
		t.Errorf("busiest %+v over %v; want 1 core, used between 0 and all of it", b, res.CPU.Wall)
	}
	out := reportText(t, res)
	if !res.CPU.OthersMeasured || !strings.Contains(out, "Others:  other processes kept") {
		t.Errorf("a run of %v did not measure the other processes' CPU time:\n%s", res.CPU.Wall, out)
	}
	want := "neither the client"
	switch cs, ss := res.CPU.ClientSaturated(), res.CPU.ServerSaturated(); {
	case cs && ss:
		want = "both"
	case cs:
		want = "the client"
	case ss:
		want = "the server"
	}
	if !strings.Contains(out, "Limit:   "+want) {
		t.Errorf("report lacks %q:\n%s", "Limit:   "+want, out)
	}
	if j := res.JSON(); j.CPU.ServerBusiest == nil || j.CPU.ServerBusiest.PID != b.PID {
		t.Errorf("JSON server_busiest %+v; want PID %d", j.CPU.ServerBusiest, b.PID)
	}
}
