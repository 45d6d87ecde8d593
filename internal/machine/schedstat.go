package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ProcessRuntime returns the CPU time process pid has run, summed over
// its threads, from the scheduler's own accounting in
// /proc/PID/task/TID/schedstat: nanoseconds, where /proc/PID/stat counts
// 10 ms ticks, so that the CPU of a run shorter than a second is not
// mostly rounding. A thread that is running right now may not have had
// its time added yet; read it after the work is done.
func ProcessRuntime(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("reading the CPU time of process %d: no schedstat", pid)
	}
	var sum time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			return 0, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
		}
		ns, err := parseSchedstat(string(data))
		if err != nil {
			return 0, err
		}
		sum += ns
	}
	return sum, nil
}

// parseSchedstat reads the first field of a schedstat line: the time the
// task ran on a CPU, in nanoseconds.
func parseSchedstat(line string) (time.Duration, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return 0, fmt.Errorf("parsing schedstat %q: empty", line)
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ns < 0 {
		return 0, fmt.Errorf("parsing schedstat %q: bad run time", line)
	}
	return time.Duration(ns), nil
}
