// Package labtest starts the lab's servers for tests and stops them when
// the test ends, as net/http/httptest does for net/http: the embedded
// server, a lab nginx, raw TCP servers that misbehave on purpose, and the
// golden-file comparison. It imports testing, so only tests import it;
// the httpslab binary does not link it.
package labtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/machine"
)

// StartServer starts the embedded server for a test and closes it when
// the test ends.
func StartServer(t testing.TB, cfg lab.Config) *lab.Server {
	t.Helper()
	return start(t, "the embedded server", cfg, lab.Start)
}

// StartNginx starts a lab nginx for a test and stops it when the test
// ends. nginx is a required test dependency, installed by the README's
// test command; a missing nginx fails the test.
func StartNginx(t testing.TB, cfg lab.NginxConfig) *lab.Nginx {
	t.Helper()
	return start(t, "nginx", cfg, lab.StartNginx)
}

// start starts a server of the lab with cfg, failing the test when it
// cannot, and closes it when the test ends.
func start[C any, S interface{ Close() error }](t testing.TB, what string, cfg C, run func(context.Context, C) (S, error)) S {
	t.Helper()
	s, err := run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting %s: %v", what, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// LimitCPU moves the processes pids into a new cgroup of this machine's
// cpu hierarchy that may use cores' worth of CPU time (a quota over a
// 100 ms period, as docker --cpus sets it), and moves them back and
// removes the cgroup when the test ends. It needs root.
func LimitCPU(t testing.TB, cores float64, pids ...int) {
	t.Helper()
	parent, v2, err := machine.CPUCgroupDir(os.Getpid())
	if err != nil {
		t.Fatalf("finding this process's cpu cgroup: %v", err)
	}
	dir, err := os.MkdirTemp(parent, "httpslab-test-")
	if err != nil {
		t.Fatalf("making a cgroup (needs root and a writable cgroup hierarchy): %v", err)
	}
	quota := int64(cores * 100000)
	if v2 {
		err = os.WriteFile(filepath.Join(dir, "cpu.max"), fmt.Appendf(nil, "%d 100000", quota), 0o644)
	} else {
		err = errors.Join(os.WriteFile(filepath.Join(dir, "cpu.cfs_period_us"), []byte("100000"), 0o644),
			os.WriteFile(filepath.Join(dir, "cpu.cfs_quota_us"), fmt.Appendf(nil, "%d", quota), 0o644))
	}
	t.Cleanup(func() {
		// A process that still lives goes back to where this one is;
		// the directory of an empty cgroup can then be removed.
		for _, pid := range pids {
			_ = os.WriteFile(filepath.Join(parent, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing the test cgroup: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("setting the CPU quota: %v", err)
	}
	for _, pid := range pids {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			t.Fatalf("moving process %d into the test cgroup: %v", pid, err)
		}
	}
}

// LoopbackLeaf returns a new ECDSA P-256 CA and a leaf it issued for
// 127.0.0.1, failing the test when either cannot be made.
func LoopbackLeaf(t testing.TB) (*lab.CA, *lab.Leaf) {
	t.Helper()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(lab.ECDSAP256, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return ca, leaf
}
