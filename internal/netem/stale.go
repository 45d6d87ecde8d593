package netem

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/httpslab/httpslab/internal/machine"
	"golang.org/x/sys/unix"
)

// nsPrefix starts the name of every namespace httpslab creates; the owning
// process id and a serial number follow: httpslab-<pid>-<n>.
const nsPrefix = "httpslab-"

// nsDir is where ip netns keeps its named namespaces.
const nsDir = "/run/netns"

func nsPath(name string) string { return filepath.Join(nsDir, name) }

// slot is one /30 of 198.18.0.0/15: .1 is the client, .2 the server.
type slot int

// slots is the number of /30 blocks in 198.18.0.0/15.
const slots = 1 << 15

func (s slot) base() uint32          { return 198<<24 | 18<<16 | uint32(s)*4 }
func (s slot) clientIP() net.IP      { return ipv4(s.base() + 1) }
func (s slot) serverIP() net.IP      { return ipv4(s.base() + 2) }
func (s slot) device() string        { return "hlab" + strconv.Itoa(int(s)) }
func ipv4(v uint32) net.IP           { return net.IPv4(byte(v>>24), byte(v>>16), byte(v>>8), byte(v)) }
func (s slot) next(i int) slot       { return slot((int(s) + i) % slots) }
func firstSlot(pid, serial int) slot { return slot((pid*7919 + serial) % slots) }

// claimSlot finds a free address slot by creating the client device of
// that slot in the host namespace. The kernel refuses a second open of an
// attached TUN device (EBUSY), so the device itself is the lock between
// processes, and it vanishes when its owner dies.
func claimSlot() (*slot, *os.File, error) {
	first := firstSlot(os.Getpid(), int(linkSerial.Load()))
	var last error
	for i := 0; i < 256; i++ {
		s := first.next(i)
		f, err := openTUN(s.device())
		if err == nil {
			return &s, f, nil
		}
		last = err
		if !errors.Is(err, unix.EBUSY) && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EEXIST) {
			break
		}
	}
	return nil, nil, fmt.Errorf("finding a free link address: %w", last)
}

// CleanStale removes the namespaces of earlier runs whose process no
// longer exists, ending what still runs inside them. Their TUN devices
// need no cleaning: the kernel removed them when the process died.
func CleanStale() error {
	entries, err := os.ReadDir(nsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("listing network namespaces: %w", err)
	}
	var errs []error
	for _, e := range entries {
		pid, ok := ownerPID(e.Name())
		// A zombie counts as gone: a killed httpslab whose parent has
		// not reaped it yet (in a container whose init reaps late, for
		// minutes) would otherwise keep its namespace, and the server
		// still running inside, from being cleaned.
		if !ok || machine.Alive(pid) {
			continue
		}
		errs = append(errs, removeNamespace(e.Name()))
	}
	return errors.Join(errs...)
}

// ownerPID reads the process id out of a namespace name httpslab-<pid>-<n>.
func ownerPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, nsPrefix)
	if !ok {
		return 0, false
	}
	p, n, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	serial, err2 := strconv.Atoi(n)
	// Only the names Start makes: canonical decimal numbers.
	if err != nil || err2 != nil || pid <= 0 || strconv.Itoa(pid) != p || strconv.Itoa(serial) != n {
		return 0, false
	}
	return pid, true
}

// removeNamespace kills the processes inside the namespace, unmounts it
// and removes its file, as ip netns del does.
func removeNamespace(name string) error {
	path := nsPath(name)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("removing network namespace %s: %w", name, err)
	}
	for _, pid := range machine.NetNamespacePIDs(st.Ino) {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	if err := unix.Unmount(path, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("removing network namespace %s: %w", name, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing network namespace %s: %w", name, err)
	}
	return nil
}

// run executes a command and returns its output in the error if it fails.
func run(ctx context.Context, argv ...string) error {
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("running %s: %w: %s", strings.Join(argv, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// runBatch feeds ip commands to "ip -batch -", inside namespace ns unless
// ns is empty.
func runBatch(ctx context.Context, ns, script string) error {
	argv := []string{"ip", "-batch", "-"}
	if ns != "" {
		argv = []string{"ip", "-n", ns, "-batch", "-"}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("configuring the link (%s): %w: %s", strings.Join(argv, " "), err, bytes.TrimSpace(out))
	}
	return nil
}
