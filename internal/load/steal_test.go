package load

import (
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

func TestParseSteal(t *testing.T) {
	const twoCPUs = "cpu  608324 0 149922 668625 966 0 38783 13175 0 0\n" +
		"cpu0 304049 0 73279 333766 616 0 23139 6904 0 0\n" +
		"cpu1 304275 0 76643 334859 349 0 15644 6271 0 0\n" +
		"intr 1 2 3\nctxt 99\n"
	tests := []struct {
		name      string
		stat      string
		wantSteal time.Duration
		wantCPUs  int
		wantErr   string
	}{
		{"two cpus", twoCPUs, 131750 * time.Millisecond, 2, ""},
		{"old kernel without steal", "cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", 0, 0, "no steal column"},
		{"bad value", "cpu  1 2 3 4 5 6 7 x 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n", 0, 0, "bad steal"},
		{"negative", "cpu  1 2 3 4 5 6 7 -5 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n", 0, 0, "bad steal"},
		{"no per-cpu lines", "cpu  1 2 3 4 5 6 7 8 0 0\n", 0, 0, "no cpu lines"},
		{"empty", "", 0, 0, "no cpu lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steal, cpus, err := parseSteal(tt.stat)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseSteal = %v, %d, %v; want error %q", steal, cpus, err, tt.wantErr)
				}
				return
			}
			if err != nil || steal != tt.wantSteal || cpus != tt.wantCPUs {
				t.Errorf("parseSteal = %v, %d, %v; want %v, %d", steal, cpus, err, tt.wantSteal, tt.wantCPUs)
			}
		})
	}
}

func TestStealShare(t *testing.T) {
	tests := []struct {
		cpu  CPU
		want float64
	}{
		{CPU{Steal: time.Second, MachineCPUs: 2, Wall: 10 * time.Second, StealMeasured: true}, 0.05},
		{CPU{Steal: time.Second, MachineCPUs: 2, Wall: 10 * time.Second}, 0}, // not measured
		{CPU{Steal: time.Second, MachineCPUs: 0, Wall: 10 * time.Second, StealMeasured: true}, 0},
		{CPU{Steal: time.Second, MachineCPUs: 2, StealMeasured: true}, 0}, // no wall time
	}
	for _, tt := range tests {
		if got := tt.cpu.StealShare(); got != tt.want {
			t.Errorf("%+v.StealShare() = %v; want %v", tt.cpu, got, tt.want)
		}
	}
}

// TestStealSince checks that a run's steal comes from this machine's
// /proc/stat and counts only when the run is long enough for its ticks.
func TestStealSince(t *testing.T) {
	if _, cpus, err := machineSteal(); err != nil || cpus < 1 {
		t.Fatalf("machineSteal() = %d CPUs, %v; want the CPUs of this Linux machine", cpus, err)
	}
	t0 := time.Now()
	start := cpuSample{at: t0, steal: time.Second, cpus: 2}
	for _, tt := range []struct {
		wall     time.Duration
		measured bool
	}{{10 * time.Second, true}, {500 * time.Millisecond, true}, {100 * time.Millisecond, false}} {
		end := cpuSample{at: t0.Add(tt.wall), steal: time.Second + 30*time.Millisecond, cpus: 2}
		c := start.since(end)
		if c.StealMeasured != tt.measured || (tt.measured && (c.Steal != 30*time.Millisecond || c.MachineCPUs != 2)) {
			t.Errorf("over %v: steal %v on %d CPUs, measured %v; want 30ms on 2, measured %v", tt.wall, c.Steal, c.MachineCPUs, c.StealMeasured, tt.measured)
		}
	}
}

// TestReportSteal checks the steal line of a real run's report: it names
// the machine's CPUs and says when the share is high enough to matter.
func TestReportSteal(t *testing.T) {
	s := lab.StartTestServer(t, lab.Config{NoHTTP3: true})
	res := mustRun(t, Config{Targets: []Target{{URL: s.HTTPURL + "/"}}, Requests: 20})
	for _, tt := range []struct {
		wall, steal time.Duration
		want        string
		warn        bool
	}{
		{10 * time.Second, 0, "0.0% of the machine's 2 CPU(s)", false},
		{10 * time.Second, 4 * time.Second, "20.0% of the machine's 2 CPU(s)", true},
		// Four 10 ms ticks: too few for a warning.
		{100 * time.Millisecond, 40 * time.Millisecond, "20.0% of the machine's 2 CPU(s)", false},
	} {
		r := *res
		r.CPU.Wall, r.CPU.Steal, r.CPU.MachineCPUs, r.CPU.StealMeasured = tt.wall, tt.steal, 2, true
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "Steal:   "+tt.want) || strings.Contains(out, "the host was busy") != tt.warn {
			t.Errorf("steal %v in %v: report says\n%s\nwant %q, warning %v", tt.steal, tt.wall, out, tt.want, tt.warn)
		}
	}
	r := *res
	r.CPU.StealMeasured = false
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Steal:") {
		t.Errorf("report shows steal that was not measured:\n%s", b.String())
	}
}
