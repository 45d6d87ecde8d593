// Package machine reads what the machine itself did while httpslab
// measured: the CPU time a hypervisor took from it (steal time). On a
// virtual machine whose host is busy, steal slows client and server alike
// by an amount that changes from second to second, and the reports say so
// rather than present such a run as the tools' doing.
package machine

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Tick is the unit of /proc/stat's counters (USER_HZ), 10 ms on Linux.
const Tick = 10 * time.Millisecond

// WarnShare is the steal share from which a report says that the host,
// not only client and server, set the pace.
const WarnShare = 0.05

// Sample is a reading of the machine's steal counter.
type Sample struct {
	At    time.Time
	Steal time.Duration // summed over all CPUs since boot
	CPUs  int
	Err   error
}

// Read samples /proc/stat now.
func Read() Sample {
	s := Sample{At: time.Now()}
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		s.Err = err
		return s
	}
	s.Steal, s.CPUs, s.Err = ParseStat(string(data))
	return s
}

// ParseStat reads the steal column (the eighth value) of the "cpu" line
// of /proc/stat and counts the "cpuN" lines.
func ParseStat(stat string) (time.Duration, int, error) {
	var steal time.Duration
	found, cpus := false, 0
	for line := range strings.Lines(stat) {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "cpu":
			if len(f) < 9 {
				return 0, 0, fmt.Errorf("parsing /proc/stat: no steal column")
			}
			v, err := strconv.ParseInt(f[8], 10, 64)
			if err != nil || v < 0 {
				return 0, 0, fmt.Errorf("parsing /proc/stat: bad steal %q", f[8])
			}
			steal, found = time.Duration(v)*Tick, true
		case len(f) > 0 && strings.HasPrefix(f[0], "cpu"):
			cpus++
		}
	}
	if !found || cpus == 0 {
		return 0, 0, fmt.Errorf("parsing /proc/stat: no cpu lines")
	}
	return steal, cpus, nil
}

// Steal is the steal time between two samples.
type Steal struct {
	Stolen time.Duration // summed over CPUs
	Wall   time.Duration
	CPUs   int
}

// Between returns the steal from a to b. It reports false when either
// sample failed, or when the span holds less than a second of CPU time
// in all: one 10 ms tick would then be more than 1%, and the share a guess.
func Between(a, b Sample) (Steal, bool) {
	wall := b.At.Sub(a.At)
	if a.Err != nil || b.Err != nil || a.CPUs == 0 || wall*time.Duration(a.CPUs) < time.Second {
		return Steal{}, false
	}
	return Steal{Stolen: max(b.Steal-a.Steal, 0), Wall: wall, CPUs: a.CPUs}, true
}

// Share is the share of the machine's CPU time that was stolen, 0 to 1.
func (s Steal) Share() float64 {
	if s.Wall <= 0 || s.CPUs == 0 {
		return 0
	}
	return float64(s.Stolen) / float64(s.Wall) / float64(s.CPUs)
}

// Warn reports whether the share is high enough, over enough ticks
// (five), for a report to say that the host set the pace.
func (s Steal) Warn() bool { return s.Share() >= WarnShare && s.Stolen >= 5*Tick }

// MarshalJSON writes the share with the time it was taken from: stolen
// and wall seconds and the CPUs.
func (s Steal) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Share  float64 `json:"share"`
		Stolen float64 `json:"stolen_s"`
		Wall   float64 `json:"wall_s"`
		CPUs   int     `json:"cpus"`
	}{s.Share(), s.Stolen.Seconds(), s.Wall.Seconds(), s.CPUs})
}

// Line is the sentence reports print: the share, the CPUs, and the
// warning when there is one.
func (s Steal) Line() string {
	line := fmt.Sprintf("%.1f%% of the machine's %d CPU(s) taken by the hypervisor", 100*s.Share(), s.CPUs)
	if s.Warn() {
		line += ": the host was busy, so times vary from run to run"
	}
	return line
}
