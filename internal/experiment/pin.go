package experiment

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ParseCPUList reads a CPU list as taskset -c and /proc write them:
// "1", "0,2", "2-3".
func ParseCPUList(s string) (unix.CPUSet, error) {
	var set unix.CPUSet
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= 1024 {
			return set, fmt.Errorf("CPU list %q: want numbers and ranges such as 0,2-3", s)
		}
		for c := a; c <= b; c++ {
			set.Set(c)
		}
	}
	return set, nil
}

// pinClient keeps every thread of this process (and so the threads it
// starts later, which inherit the mask) on the CPUs of list, so that the
// measuring client and the server do not take each other's cores. It
// returns the function that gives every thread its old mask back.
func pinClient(list string) (restore func(), err error) {
	set, err := ParseCPUList(list)
	if err != nil {
		return nil, err
	}
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("reading the CPU affinity: %w", err)
	}
	if err := setAllThreads(&set); err != nil {
		_ = setAllThreads(&old)
		return nil, fmt.Errorf("pinning the client to CPUs %s: %w", list, err)
	}
	return func() { _ = setAllThreads(&old) }, nil
}

// setAllThreads sets the affinity of every thread of this process.
func setAllThreads(set *unix.CPUSet) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		// A thread may have exited since the listing: not an error.
		if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
			return err
		}
	}
	return nil
}
