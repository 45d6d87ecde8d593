package machine

import (
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	const twoCPUs = "cpu  608324 0 149922 668625 966 0 38783 13175 0 0\n" +
		"cpu0 304049 0 73279 333766 616 0 23139 6904 0 0\n" +
		"cpu1 304275 0 76643 334859 349 0 15644 6271 0 0\n" +
		"intr 1 2 3\nctxt 99\n"
	// Busy: user 608324 + nice 0 + system 149922.
	const twoCPUsBusy = (608324 + 149922) * 10 * time.Millisecond
	tests := []struct {
		name    string
		stat    string
		want    Sample
		wantErr string
	}{
		{"two cpus", twoCPUs, Sample{Steal: 131750 * time.Millisecond, Busy: twoCPUsBusy, CPUs: 2}, ""},
		{"old kernel without steal", "cpu  1 2 3 4 5 6 7\ncpu0 1 2 3 4 5 6 7\n", Sample{}, "no steal column"},
		{"bad steal", "cpu  1 2 3 4 5 6 7 x 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n", Sample{}, `bad value "x" in column 8`},
		{"negative", "cpu  1 2 3 4 5 6 7 -5 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n", Sample{}, `bad value "-5"`},
		{"bad user", "cpu  u 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n", Sample{}, `bad value "u" in column 1`},
		{"no per-cpu lines", "cpu  1 2 3 4 5 6 7 8 0 0\n", Sample{}, "no cpu lines"},
		{"empty", "", Sample{}, "no cpu lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat(tt.stat)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseStat = %+v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseStat = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestRead reads this Linux machine's /proc/stat.
func TestRead(t *testing.T) {
	if s := Read(); s.Err != nil || s.CPUs < 1 || s.Busy <= 0 {
		t.Fatalf("Read() = %+v; want the CPUs of this machine", s)
	}
}

func TestBetween(t *testing.T) {
	t0 := time.Now()
	a := Sample{At: t0, Steal: time.Second, Busy: time.Minute, CPUs: 2}
	tests := []struct {
		name     string
		b        Sample
		measured bool
		share    float64
		busy     time.Duration
	}{
		{"ten seconds", Sample{At: t0.Add(10 * time.Second), Steal: 2 * time.Second, Busy: time.Minute + 15*time.Second, CPUs: 2}, true, 0.05, 15 * time.Second},
		{"half a second on two CPUs", Sample{At: t0.Add(500 * time.Millisecond), Steal: time.Second, Busy: time.Minute, CPUs: 2}, true, 0, 0},
		{"too short for the ticks", Sample{At: t0.Add(100 * time.Millisecond), Steal: time.Second, Busy: time.Minute, CPUs: 2}, false, 0, 0},
		{"failed sample", Sample{At: t0.Add(10 * time.Second), Err: errTest}, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Between(a, tt.b)
			if ok != tt.measured || s.Share() != tt.share {
				t.Errorf("Between = %+v (share %v), %v; want share %v, %v", s, s.Share(), ok, tt.share, tt.measured)
			}
			if busy, ok := BusyBetween(a, tt.b); ok != tt.measured || busy != tt.busy {
				t.Errorf("BusyBetween = %v, %v; want %v, %v", busy, ok, tt.busy, tt.measured)
			}
		})
	}
}

type testError string

func (e testError) Error() string { return string(e) }

const errTest = testError("unreadable")

func TestLine(t *testing.T) {
	tests := []struct {
		s    Steal
		want string
		warn bool
	}{
		{Steal{Stolen: 0, Wall: 10 * time.Second, CPUs: 2}, "0.0% of the machine's 2 CPU(s)", false},
		{Steal{Stolen: 4 * time.Second, Wall: 10 * time.Second, CPUs: 2}, "20.0% of the machine's 2 CPU(s)", true},
		// Four ticks: too few for a warning, whatever the share.
		{Steal{Stolen: 40 * time.Millisecond, Wall: 100 * time.Millisecond, CPUs: 2}, "20.0% of the machine's 2 CPU(s)", false},
	}
	for _, tt := range tests {
		got := tt.s.Line()
		if !strings.HasPrefix(got, tt.want) || strings.Contains(got, "the host was busy") != tt.warn {
			t.Errorf("%+v.Line() = %q; want %q..., warning %v", tt.s, got, tt.want, tt.warn)
		}
	}
}
