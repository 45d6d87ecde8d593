package load

import (
	"crypto/tls"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/transport"
)

// sampleResult builds a deterministic open-model result by feeding
// events through the aggregator.
func sampleResult() *Result {
	cfg := Config{Targets: []Target{{URL: "https://127.0.0.1:8443/"}, {URL: "https://127.0.0.1:8443/a"}},
		Conns: 4, Streams: 1, Pipeline: 1, Rate: 100, Mode: transport.Resumed, RequestsPerConn: 1}
	a := newAggregator(cfg, time.Unix(0, 0))
	for i := int64(0); i < 100; i++ {
		a.add(&event{kind: handshakeEvent, connect: 50e3, tls: 400e3 + i*1e3, end: i * 10e6, version: tls.VersionTLS13,
			cipher: tls.TLS_AES_128_GCM_SHA256, curve: tls.X25519, resumed: i > 0})
		a.add(&event{intended: i * 10e6, start: i*10e6 + i*20e3, end: i*10e6 + 1e6 + i*50e3, wait: 500e3, status: 200, bytes: 1100})
	}
	a.add(&event{intended: 1000e6, start: 1000e6, end: 1001e6, err: errMalformed})
	r := a.r
	r.Elapsed = time.Duration(a.last)
	r.CPU = CPU{ClientUser: 30 * time.Millisecond, ClientSystem: 20 * time.Millisecond, ClientCores: 1,
		Wall: time.Second, ServerMeasured: true, ServerUser: 40 * time.Millisecond, ServerSystem: 10 * time.Millisecond,
		ServerBusiest: ProcBusy{PID: 4321, CPU: 50 * time.Millisecond, Cores: 1}}
	return r
}

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
		{"client", cpu(0.95, true, 0.5), 0, "the client (95% of 1 core(s)), not the server (process 77 at 50% of 1 core(s)): the server may hold more"},
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
		{"server at a quota", func() CPU {
			c := cpu(0.3, true, 0)
			c.ServerBusiest = ProcBusy{PID: 77, CPU: 960 * time.Millisecond, Cores: 0.5}
			return c
		}(), 0, "the server (process 77 at 96% of 0.5 core(s))"},
		{"open model", cpu(0.95, true, 0.95), 1000, ""},
		{"short run", CPU{ClientUser: 90 * time.Millisecond, ClientCores: 1, Wall: 100 * time.Millisecond}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleResult()
			r.Config.Rate, r.CPU = tt.rate, tt.cpu
			got := r.Limit()
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("limit line %q; want it to start with %q", got, tt.want)
			}
		})
	}
}

// TestServerBusiestNginx loads a real nginx given by its master's PID:
// the busiest process is the worker, which has one thread, and the report
// names the limit.
func TestServerBusiestNginx(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	res := mustRun(t, Config{Targets: []Target{{URL: n.HTTPURL + "/1k.bin"}}, Conns: 8, Duration: 1200 * time.Millisecond,
		ServerPIDs: []int{n.PID()}})
	b := res.CPU.ServerBusiest
	if workers := n.WorkerPIDs(); !slices.Contains(workers, b.PID) {
		t.Errorf("busiest server process %d; want one of the workers %v", b.PID, workers)
	}
	if b.Cores != 1 || b.CPU <= 0 || b.Share(res.CPU.Wall) > 1+float64(2*machine.Tick)/float64(res.CPU.Wall) {
		t.Errorf("busiest %+v over %v; want 1 core, used between 0 and all of it", b, res.CPU.Wall)
	}
	if !res.CPU.OthersMeasured {
		t.Errorf("a run of %v did not measure the other processes' CPU time", res.CPU.Wall)
	}
	// Whichever side was the limit on this machine, the line names the
	// busiest worker and its single core.
	out := res.Limit()
	if want := fmt.Sprintf("(process %d at ", b.PID); !strings.Contains(out, want) || !strings.Contains(out, "% of 1 core(s))") {
		t.Errorf("Limit line %q lacks %q and its one core", out, want)
	}
	if u, _ := url.Parse(n.HTTPURL); res.CPU.NotListening || strconv.Itoa(res.CPU.ServerPort) != u.Port() {
		t.Errorf("nginx listens on port %s: CPU %+v", u.Port(), res.CPU)
	}
}

// TestServerNotListening names as the server a process that holds no
// socket on the target's port (a PID mistyped): the report says so. The
// embedded server's own process does listen, over TCP and over UDP.
func TestServerNotListening(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	tc := clientTLS(t, srv.CA.CertPEM)
	for _, tt := range []struct {
		name  string
		pid   int
		proto transport.Protocol
		want  bool
	}{
		{"another process", cmd.Process.Pid, transport.HTTP1, true},
		{"the server, TCP", os.Getpid(), transport.HTTP2, false},
		{"the server, UDP", os.Getpid(), transport.HTTP3, false},
	} {
		res := mustRun(t, Config{Targets: []Target{{URL: srv.HTTPSURL + "/"}}, Conns: 1, Requests: 5, Protocol: tt.proto,
			TLS: tc, ServerPIDs: []int{tt.pid}})
		if res.CPU.NotListening != tt.want {
			t.Errorf("%s: NotListening %v (port %d); want %v", tt.name, res.CPU.NotListening, res.CPU.ServerPort, tt.want)
		}
	}
}

// TestServerBusiestQuota holds nginx's worker to a quarter core with a
// cgroup CPU quota: on a machine with idle cores beside it, the worker at
// its quota is still the limit, and the report says so. A quota is a
// ceiling, not a promise: when other processes keep the cores busy the
// worker may not reach it, and then the line blames the machine.
func TestServerBusiestQuota(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	labtest.LimitCPU(t, 0.25, n.WorkerPIDs()...)
	res := mustRun(t, Config{Targets: []Target{{URL: n.HTTPURL + "/1k.bin"}}, Conns: 8, Duration: 1500 * time.Millisecond,
		ServerPIDs: []int{n.PID()}})
	b := res.CPU.ServerBusiest
	if b.Cores != 0.25 {
		t.Fatalf("busiest server process %+v; want the worker with 0.25 cores", b)
	}
	out := res.Limit()
	if want := fmt.Sprintf("(process %d at ", b.PID); !strings.Contains(out, want) || !strings.Contains(out, "% of 0.25 core(s))") {
		t.Errorf("Limit line %q lacks %q and the quota's 0.25 cores", out, want)
	}
	if busy := res.CPU.busyMachine(); busy != "" && !res.CPU.ServerSaturated() && !res.CPU.ClientSaturated() {
		t.Logf("the worker used %.0f%% of its quota while %s", 100*b.Share(res.CPU.Wall), busy)
		if !strings.Contains(out, "the machine was busy ("+busy+")") {
			t.Errorf("the worker did not reach its quota on a busy machine; want the Limit line to blame the machine:\n%s", out)
		}
		return
	}
	if !res.CPU.ServerSaturated() || !strings.HasPrefix(out, "the server (process ") {
		t.Errorf("a worker held to 0.25 cores used %.0f%% of them on a quiet machine; want the Limit line to name it:\n%s",
			100*b.Share(res.CPU.Wall), out)
	}
}

// TestLimitLineFailures checks that the Limit line does not judge a run
// that failures paced: a dead server's refused dials kept the client at
// 66% of its cores, and the line said "not the client".
func TestLimitLineFailures(t *testing.T) {
	tests := []struct {
		name             string
		requests, errors int64
		want             string
	}{
		{"some failed", 290, 580, "not judged: 66.7% of the requests failed"},
		{"all failed", 0, 6, "not judged: 100% of the requests failed"},
		{"nothing ended", 0, 0, ""},
		{"few failed", 1000, 5, "not the client (50% of 1 core(s))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleResult()
			r.Config.Rate = 0
			r.Requests, r.Errors = tt.requests, tt.errors
			r.CPU = CPU{ClientUser: time.Second, ClientCores: 1, Wall: 2 * time.Second}
			got := r.Limit()
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
				t.Errorf("%d completed, %d failed: limit line %q; want it to start with %q", tt.requests, tt.errors, got, tt.want)
			}
		})
	}
}
