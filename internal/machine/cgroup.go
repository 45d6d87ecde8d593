package machine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A process in a container may be held to less CPU time than its threads
// and affinity mask allow: a cgroup CPU quota (docker --cpus, a systemd
// CPUQuota=, a Kubernetes limit) lets it run for quota microseconds in
// every period. Such a process is the limit of a run once it has used its
// quota, even with idle cores beside it.

// CPUQuota returns the cores' worth of CPU time the cgroups of process
// pid allow it, the smallest quota over the process's cgroup and its
// ancestors (cgroup v2 cpu.max, v1 cpu.cfs_quota_us over
// cpu.cfs_period_us); ok is false when no quota applies or none can be
// read.
func CPUQuota(pid int) (cores float64, ok bool) {
	return cpuQuota("/", pid)
}

// cpuQuota is CPUQuota with /proc and the cgroup mounts under root.
func cpuQuota(root string, pid int) (float64, bool) {
	dirs, err := cpuCgroupDirs(root, pid)
	if err != nil {
		return 0, false
	}
	best, ok := math.Inf(1), false
	for _, d := range dirs {
		for dir := d.path; ; dir = filepath.Dir(dir) {
			if q, found := readQuota(dir, d.v2); found && q < best {
				best, ok = q, true
			}
			if dir == d.mount || len(dir) <= len(d.mount) {
				break
			}
		}
	}
	if !ok {
		return 0, false
	}
	return best, true
}

// cgroupDir is the directory of a process's cgroup in a hierarchy that
// has the cpu controller, with that hierarchy's mount point.
type cgroupDir struct {
	path, mount string
	v2          bool
}

// CPUCgroupDir returns the directory of process pid's cgroup in the
// hierarchy with the cpu controller, and whether that hierarchy is cgroup
// v2, so that a caller can make a child cgroup with a quota of its own.
func CPUCgroupDir(pid int) (dir string, v2 bool, err error) {
	dirs, err := cpuCgroupDirs("/", pid)
	if err != nil {
		return "", false, err
	}
	for _, d := range dirs {
		if !d.v2 || fileExists(filepath.Join(d.path, "cpu.max")) {
			return d.path, d.v2, nil
		}
	}
	return "", false, fmt.Errorf("process %d: no cgroup hierarchy with the cpu controller", pid)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// cpuCgroupDirs finds process pid's cgroups in the hierarchies that can
// carry a CPU quota: the v1 hierarchy of the cpu controller and the v2
// hierarchy.
func cpuCgroupDirs(root string, pid int) ([]cgroupDir, error) {
	membership, err := os.ReadFile(filepath.Join(root, "proc", strconv.Itoa(pid), "cgroup"))
	if err != nil {
		return nil, err
	}
	mountinfo, err := os.ReadFile(filepath.Join(root, "proc", "self", "mountinfo"))
	if err != nil {
		return nil, err
	}
	mounts := parseCgroupMounts(string(mountinfo))
	var dirs []cgroupDir
	for line := range strings.Lines(string(membership)) {
		// hierarchy-ID:controllers:path; v2 has ID 0 and no controllers.
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		v2 := f[0] == "0" && f[1] == ""
		if !v2 && !slices.Contains(strings.Split(f[1], ","), "cpu") {
			continue
		}
		for _, m := range mounts {
			if m.v2 != v2 || (!v2 && !slices.Contains(m.controllers, "cpu")) {
				continue
			}
			rel, ok := strings.CutPrefix(f[2], m.root)
			if !ok || (rel != "" && m.root != "/" && !strings.HasPrefix(rel, "/")) {
				continue // the cgroup lies outside what this mount shows
			}
			mount := filepath.Join(root, m.point)
			dirs = append(dirs, cgroupDir{path: filepath.Join(mount, rel), mount: mount, v2: v2})
			break
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("process %d: no cgroup with a cpu controller found", pid)
	}
	return dirs, nil
}

// cgroupMount is a mounted cgroup hierarchy: the cgroup shown at its
// mount point (root), where it is mounted, its controllers (v1).
type cgroupMount struct {
	root, point string
	controllers []string
	v2          bool
}

// parseCgroupMounts reads the cgroup hierarchies of /proc/self/mountinfo,
// whose lines read "ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - TYPE
// SOURCE SUPEROPTIONS".
func parseCgroupMounts(mountinfo string) []cgroupMount {
	var out []cgroupMount
	for line := range strings.Lines(mountinfo) {
		pre, post, ok := strings.Cut(strings.TrimSpace(line), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 3 {
			continue
		}
		switch b[0] {
		case "cgroup2":
			out = append(out, cgroupMount{root: unescapeMount(a[3]), point: unescapeMount(a[4]), v2: true})
		case "cgroup":
			out = append(out, cgroupMount{root: unescapeMount(a[3]), point: unescapeMount(a[4]), controllers: strings.Split(b[2], ",")})
		}
	}
	return out
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// readQuota reads the CPU quota of one cgroup directory in cores; found
// is false when it sets none.
func readQuota(dir string, v2 bool) (float64, bool) {
	if v2 {
		data, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(data))
		if len(f) != 2 || f[0] == "max" {
			return 0, false
		}
		return quotaCores(f[0], f[1])
	}
	q, err1 := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	p, err2 := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return quotaCores(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

// quotaCores is quota over period, both in microseconds; a negative
// quota (v1's -1) sets no limit.
func quotaCores(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return float64(q) / float64(p), true
}
