package machine

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParsePortRange(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"32768\t60999\n", 28232, true}, {"1024 1024", 1, true},
		{"", 0, false}, {"5 4", 0, false}, {"a b", 0, false}, {"1 2 3", 0, false}, {"-1 5", 0, false},
	} {
		if got, ok := parsePortRange(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("parsePortRange(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// lowerOpenFiles sets this process's soft open-file limit to n until the
// test ends.
func lowerOpenFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	old := lim
	lim.Cur = n
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}

// TestConnLimit lowers the open-file limit below the machine's local
// ports: ConnLimit follows it, less the reserve, and says why.
func TestConnLimit(t *testing.T) {
	lowerOpenFiles(t, 300)
	n, why := ConnLimit()
	if n != 300-FDReserve || !strings.Contains(why, "open-file limit is 300") {
		t.Errorf("ConnLimit() with 300 open files = %d, %q; want %d and the open-file limit", n, why, 300-FDReserve)
	}
	if ports, ok := LocalPorts(); !ok || ports < 1 {
		t.Errorf("LocalPorts() = %d, %v; want this machine's range", ports, ok)
	}
}
