package machine

import (
	"os"
	"path/filepath"
	"testing"
)

// writeTree makes files under root from a map of relative paths to
// contents.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCPUQuotaTrees reads the quota from /proc and cgroup trees laid out
// as the kernel lays them out: v1 with cpu and cpuacct joined, v2, a
// quota set on an ancestor, and none at all.
func TestCPUQuotaTrees(t *testing.T) {
	v1Mounts := "30 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
		"32 30 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n" +
		"33 30 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
	v2Mounts := "41 31 0:38 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	tests := []struct {
		name  string
		files map[string]string
		want  float64
		ok    bool
	}{
		{"v1 own", map[string]string{
			"proc/self/mountinfo": v1Mounts,
			"proc/7/cgroup":       "4:memory:/web\n2:cpu,cpuacct:/web/nginx\n",
			"sys/fs/cgroup/cpu,cpuacct/web/nginx/cpu.cfs_quota_us":  "50000\n",
			"sys/fs/cgroup/cpu,cpuacct/web/nginx/cpu.cfs_period_us": "100000\n",
		}, 0.5, true},
		{"v1 ancestor smaller", map[string]string{
			"proc/self/mountinfo": v1Mounts,
			"proc/7/cgroup":       "2:cpu,cpuacct:/web/nginx\n",
			"sys/fs/cgroup/cpu,cpuacct/web/nginx/cpu.cfs_quota_us":  "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/web/nginx/cpu.cfs_period_us": "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/web/cpu.cfs_quota_us":        "150000\n",
			"sys/fs/cgroup/cpu,cpuacct/web/cpu.cfs_period_us":       "100000\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":            "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us":           "100000\n",
		}, 1.5, true},
		{"v1 none", map[string]string{
			"proc/self/mountinfo":                         v1Mounts,
			"proc/7/cgroup":                               "2:cpu,cpuacct:/\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us":  "-1\n",
			"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
		}, 0, false},
		{"v2", map[string]string{
			"proc/self/mountinfo": v2Mounts,
			"proc/7/cgroup":       "0::/system.slice/nginx.service\n",
			"sys/fs/cgroup/system.slice/nginx.service/cpu.max": "200000 100000\n",
			"sys/fs/cgroup/system.slice/cpu.max":               "max 100000\n",
		}, 2, true},
		{"v2 max", map[string]string{
			"proc/self/mountinfo": v2Mounts,
			"proc/7/cgroup":       "0::/system.slice/nginx.service\n",
			"sys/fs/cgroup/system.slice/nginx.service/cpu.max": "max 100000\n",
		}, 0, false},
		{"v2 cgroup outside the mount", map[string]string{
			"proc/self/mountinfo":   "41 31 0:38 /box /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			"proc/7/cgroup":         "0::/other\n",
			"sys/fs/cgroup/cpu.max": "50000 100000\n",
		}, 0, false},
		{"no process", map[string]string{"proc/self/mountinfo": v2Mounts}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			got, ok := cpuQuota(root, 7)
			if ok != tt.ok || got != tt.want {
				t.Errorf("cpuQuota = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := unescapeMount(`/mnt/a\040b\134c`); got != `/mnt/a b\c` {
		t.Errorf("unescapeMount = %q", got)
	}
	if got := unescapeMount(`/x\0`); got != `/x\0` {
		t.Errorf("unescapeMount of a short escape = %q", got)
	}
}
