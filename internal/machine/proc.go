package machine

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A process of this machine, read from /proc/PID: its CPU time, its
// children, the cores it may keep busy, its state.

// ProcessTimes returns the user and system CPU time of process pid (all
// its threads), from /proc/PID/stat, in Tick units.
func ProcessTimes(pid int) (user, sys time.Duration, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading server CPU time: %w", err)
	}
	return parseProcStat(string(data))
}

// procStatFields returns the fields of a /proc/PID/stat line after the
// command name (field 2), from the state (field 3) on: the name may hold
// spaces and parentheses, so fields are counted after its last closing
// parenthesis.
func procStatFields(line string) ([]string, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return nil, errors.New("parsing /proc stat: no command name")
	}
	return strings.Fields(line[i+1:]), nil
}

// parseProcStat reads fields 14 and 15 (utime, stime) of a stat line.
func parseProcStat(line string) (user, sys time.Duration, err error) {
	f, err := procStatFields(line)
	if err != nil {
		return 0, 0, err
	}
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("parsing /proc stat: %d fields", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || u < 0 || s < 0 {
		return 0, 0, errors.New("parsing /proc stat: bad utime or stime")
	}
	return time.Duration(u) * Tick, time.Duration(s) * Tick, nil
}

// Children lists the direct children of process pid (those of all its
// threads), from /proc/PID/task/TID/children; none when it cannot be read.
func Children(pid int) []int {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var out []int
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(data)) {
			if p, err := strconv.Atoi(f); err == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// ProcessCores returns how many cores process pid can keep busy: its
// threads, at most the CPUs its affinity mask allows (from
// /proc/PID/status) and its cgroup CPU quota; 1 when the first two cannot
// be read.
func ProcessCores(pid int) float64 {
	cores := float64(threadCores(pid))
	if q, ok := CPUQuota(pid); ok {
		cores = min(cores, q)
	}
	return cores
}

// threadCores is min(threads, CPUs of the affinity mask) of a process,
// from /proc/PID/status; 1 when that cannot be read.
func threadCores(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 1
	}
	threads, cpus := 0, 0
	for line := range strings.Lines(string(data)) {
		k, v, _ := strings.Cut(line, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "Threads":
			threads, _ = strconv.Atoi(v)
		case "Cpus_allowed_list":
			cpus = countCPUList(v)
		}
	}
	if threads <= 0 || cpus <= 0 {
		return max(threads, cpus, 1)
	}
	return min(threads, cpus)
}

// countCPUList counts the CPUs of a list such as "0-3,8,10-11"; 0 when the
// list is malformed.
func countCPUList(s string) int {
	n := 0
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return 0
		}
		n += b - a + 1
	}
	return n
}

// ProcessExists reports whether this machine has a process pid.
func ProcessExists(pid int) bool {
	if pid <= 0 {
		return false
	}
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}

// Alive reports whether a process with this id exists and is not a
// zombie (exited, not yet reaped by its parent). A process it cannot tell
// about (one of another user, in a /proc it cannot read) counts as alive.
func Alive(pid int) bool {
	err := unix.Kill(pid, 0)
	if err != nil && !errors.Is(err, unix.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f, err := procStatFields(string(stat))
	return err != nil || len(f) == 0 || f[0] != "Z"
}

// NetNamespacePIDs lists the processes, other than this one, whose
// network namespace is the one with inode ino (as stat of
// /proc/PID/ns/net gives it).
func NetNamespacePIDs(ino uint64) []int {
	dirs, _ := os.ReadDir("/proc")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+d.Name()+"/ns/net", &st) == nil && st.Ino == ino {
			pids = append(pids, pid)
		}
	}
	return pids
}

// OwnCPU returns the user and system CPU time this process used so far
// (getrusage, in microseconds rather than /proc's 10 ms ticks); zero
// when it cannot be read.
func OwnCPU() (user, sys time.Duration) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
