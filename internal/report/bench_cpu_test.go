package report

import (
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/machine"
)

// TestBenchSteal checks the steal line of a real run's report: present
// when measured, with the warning when the host took enough, and absent
// when not measured (as for a run too short for /proc/stat's ticks).
func TestBenchSteal(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	res := mustRun(t, load.Config{Targets: []load.Target{{URL: s.HTTPURL + "/"}}, Requests: 20})
	// Whether this short run measured steal depends on the machine's CPU
	// count (machine.TestBetween covers the threshold); if it did, the
	// figures are this machine's.
	if res.CPU.StealMeasured && (res.CPU.Steal.CPUs < 1 || res.CPU.Steal.Wall <= 0) {
		t.Errorf("steal measured as %+v; want this machine's CPUs and the run's wall time", res.CPU.Steal)
	}
	for _, tt := range []struct {
		steal machine.Steal
		want  string
		warn  bool
	}{
		{machine.Steal{Wall: 10 * time.Second, CPUs: 2}, "Steal:   0.0% of the machine's 2 CPU(s)", false},
		{machine.Steal{Stolen: 4 * time.Second, Wall: 10 * time.Second, CPUs: 2}, "Steal:   20.0% of the machine's 2 CPU(s)", true},
	} {
		r := *res
		r.CPU.Steal, r.CPU.StealMeasured = tt.steal, true
		out := benchText(t, &r)
		if !strings.Contains(out, tt.want) || strings.Contains(out, "the host was busy") != tt.warn {
			t.Errorf("steal %+v: report says\n%s\nwant %q, warning %v", tt.steal, out, tt.want, tt.warn)
		}
		j := NewBenchJSON(&r)
		if j.CPU.StealShare == nil || *j.CPU.StealShare != tt.steal.Share() {
			t.Errorf("steal %+v: JSON steal_share %v; want %v", tt.steal, j.CPU.StealShare, tt.steal.Share())
		}
	}
	r := *res
	r.CPU.StealMeasured = false
	if out := benchText(t, &r); strings.Contains(out, "Steal:") {
		t.Errorf("report shows steal that was not measured:\n%s", out)
	}
}

// TestBenchServerBusy measures the embedded server in this very process
// (--server-pid of itself): the report gives the cores it kept busy, a
// number between 0 and the machine's CPUs.
func TestBenchServerBusy(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	res := mustRun(t, load.Config{Targets: []load.Target{{URL: s.HTTPURL + "/"}}, Requests: 300, ServerPIDs: []int{os.Getpid()}})
	out := benchText(t, res)
	m := regexp.MustCompile(`server kept (\d+\.\d\d) cores busy on average`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("report lacks the server's busy cores:\n%s", out)
	}
	// /proc counts CPU time in 10 ms ticks: allow one tick each for the
	// readings at the start and the end.
	limit := float64(runtime.NumCPU()) + 0.01 + float64(2*machine.Tick)/float64(res.CPU.Wall)
	if busy, _ := strconv.ParseFloat(m[1], 64); busy < 0 || busy > limit {
		t.Errorf("server kept %v cores busy over %v; want 0 to %.2f", busy, res.CPU.Wall, limit)
	}
}
