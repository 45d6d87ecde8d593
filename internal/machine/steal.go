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

// Sample is a reading of the machine's CPU counters.
type Sample struct {
	At    time.Time
	Steal time.Duration // summed over all CPUs since boot
	// Busy is the time the CPUs ran processes (user, nice and system;
	// guest time is within user), summed over all CPUs since boot.
	// Interrupt time is left out: where the kernel accounts it apart
	// (IRQ_TIME_ACCOUNTING) no process is charged for it, so it would
	// read as other processes' work; where it does not, the processes it
	// interrupted are charged, and leaving it out errs towards blaming
	// the machine less.
	Busy time.Duration
	CPUs int
	Err  error
}

// Read samples /proc/stat now.
func Read() Sample {
	s := Sample{At: time.Now()}
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		s.Err = err
		return s
	}
	at := s.At
	s, err = ParseStat(string(data))
	s.At, s.Err = at, err
	return s
}

// busyColumns and stealColumn are the columns of the "cpu" line of
// /proc/stat that ParseStat reads, counted from the line's name: user 1,
// nice 2, system 3, idle 4, iowait 5, irq 6, softirq 7, steal 8.
var busyColumns = []int{1, 2, 3}

const stealColumn = 8

// ParseStat reads the "cpu" line of /proc/stat (the sums over all CPUs)
// for the busy and steal times and counts the "cpuN" lines. The returned
// sample has no time.
func ParseStat(stat string) (Sample, error) {
	var s Sample
	found := false
	for line := range strings.Lines(stat) {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "cpu":
			if len(f) <= stealColumn {
				return Sample{}, fmt.Errorf("parsing /proc/stat: no steal column")
			}
			for _, i := range busyColumns {
				v, err := statTicks(f, i)
				if err != nil {
					return Sample{}, err
				}
				s.Busy += v
			}
			v, err := statTicks(f, stealColumn)
			if err != nil {
				return Sample{}, err
			}
			s.Steal, found = v, true
		case len(f) > 0 && strings.HasPrefix(f[0], "cpu"):
			s.CPUs++
		}
	}
	if !found || s.CPUs == 0 {
		return Sample{}, fmt.Errorf("parsing /proc/stat: no cpu lines")
	}
	return s, nil
}

func statTicks(f []string, i int) (time.Duration, error) {
	v, err := strconv.ParseInt(f[i], 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("parsing /proc/stat: bad value %q in column %d", f[i], i)
	}
	return time.Duration(v) * Tick, nil
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
	if !measurable(a, b) {
		return Steal{}, false
	}
	return Steal{Stolen: max(b.Steal-a.Steal, 0), Wall: b.At.Sub(a.At), CPUs: a.CPUs}, true
}

// BusyBetween returns the CPU time all of the machine's processes used
// between two samples, summed over its CPUs; false where Between is.
func BusyBetween(a, b Sample) (time.Duration, bool) {
	if !measurable(a, b) {
		return 0, false
	}
	return max(b.Busy-a.Busy, 0), true
}

// measurable reports whether two samples span at least a second of CPU
// time in all, enough for /proc/stat's 10 ms ticks.
func measurable(a, b Sample) bool {
	wall := b.At.Sub(a.At)
	return a.Err == nil && b.Err == nil && a.CPUs > 0 && wall*time.Duration(a.CPUs) >= time.Second
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
