package labtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"golang.org/x/sys/unix"
)

// Hosts is a private network of network namespaces for tests that need
// several client machines in front of one server: a hub namespace whose
// bridge holds ServerIP, for the server, and one namespace per host, each
// joined to the bridge by a veth pair and holding its own address, so
// that the server sees each host as a machine of its own. Every address
// (198.18.0.0/24, from the range set aside for network benchmarks) lives
// inside the namespaces only: nothing on the machine's own network
// changes, and parallel tests do not collide. The names follow netem's,
// httpslab-<pid>-<n>, so that netem.CleanStale removes the namespaces of
// a test process that died before its cleanup.
type Hosts struct {
	Hub      string   // the server's namespace
	ServerIP net.IP   // the hub's address on the bridge
	Names    []string // each host's namespace
	IPs      []net.IP // each host's address
}

// hostSerial numbers the namespaces of this process, above the serials
// netem.Start gives its links.
var hostSerial atomic.Int64

const hostSerialBase = 1 << 20

// StartHosts builds a hub and n hosts for a test (it needs root), and
// removes every namespace when the test ends, and on the way out of a
// StartHosts that failed.
func StartHosts(t testing.TB, n int) *Hosts {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := &Hosts{ServerIP: net.IPv4(198, 18, 0, 1)}
	t.Cleanup(func() { h.remove() })
	var err error
	if h.Hub, err = newNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	hub := "link add br0 type bridge\naddr add 198.18.0.1/24 dev br0\nlink set br0 up\nlink set lo up\n"
	if err := ipBatch(ctx, h.Hub, hub); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name, err := newNamespace(ctx)
		if err != nil {
			t.Fatal(err)
		}
		h.Names = append(h.Names, name)
		ip := net.IPv4(198, 18, 0, byte(11+i))
		h.IPs = append(h.IPs, ip)
		// The veth's hub end is made in the hub, its other end moved to
		// the host's namespace, where it is eth0.
		link := fmt.Sprintf("link add v%d type veth peer name eth0 netns %s\nlink set v%d master br0 up\n", i, name, i)
		if err := ipBatch(ctx, h.Hub, link); err != nil {
			t.Fatal(err)
		}
		host := fmt.Sprintf("addr add %s/24 dev eth0\nlink set eth0 up\nlink set lo up\n", ip)
		if err := ipBatch(ctx, name, host); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// Listen opens a listener in the hub, for lab.NginxConfig.Listen: the
// ports nginx is given must be free there.
func (h *Hosts) Listen(ctx context.Context, network, addr string) (net.Listener, error) {
	return inHubValue(h, func() (net.Listener, error) { return (&net.ListenConfig{}).Listen(ctx, network, addr) })
}

// Dial connects from inside the hub, for lab.NginxConfig.Dial.
func (h *Hosts) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return inHubValue(h, func() (net.Conn, error) { return (&net.Dialer{}).DialContext(ctx, network, addr) })
}

// inHubValue runs fn in the hub's namespace, as inHub does, and returns
// the socket it made there.
func inHubValue[T any](h *Hosts, fn func() (T, error)) (T, error) {
	var v T
	err := h.inHub(func() (err error) {
		v, err = fn()
		return err
	})
	return v, err
}

// inHub runs fn on an OS thread in the hub's namespace; the sockets fn
// opens stay there.
func (h *Hosts) inHub(fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		// The thread joins the hub and stays locked: the runtime ends it
		// with this goroutine instead of reusing it in the hub.
		runtime.LockOSThread()
		fd, err := unix.Open("/run/netns/"+h.Hub, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			err = unix.Setns(fd, unix.CLONE_NEWNET)
			unix.Close(fd)
		}
		if err != nil {
			errc <- fmt.Errorf("entering namespace %s: %w", h.Hub, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// Nginx returns cfg with nginx run in the hub, on ServerIP, with a leaf
// certificate that names ServerIP.
func (h *Hosts) Nginx(cfg lab.NginxConfig) lab.NginxConfig {
	cfg.Host, cfg.Listen, cfg.Dial = h.ServerIP.String(), h.Listen, h.Dial
	cfg.Leaf = func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) {
		return ca.Issue(kind, append([]string{h.ServerIP.String()}, lab.DefaultHosts...)...)
	}
	cfg.Command = func(argv []string) []string { return h.Command(h.Hub, argv...) }
	return cfg
}

// Command wraps argv to run in namespace ns (ip netns exec).
func (h *Hosts) Command(ns string, argv ...string) []string {
	return append([]string{"ip", "netns", "exec", ns}, argv...)
}

// Cmd returns a command that runs argv in namespace ns and is killed
// with this process: left running, it would keep the namespace alive.
func (h *Hosts) Cmd(ctx context.Context, ns string, argv ...string) *exec.Cmd {
	argv = h.Command(ns, argv...)
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.SysProcAttr = pdeathKill()
	return c
}

// remove deletes the namespaces, hosts first; their veth pairs go with
// them. Processes still inside are the caller's to end first.
func (h *Hosts) remove() {
	for _, ns := range append(h.Names, h.Hub) {
		if ns != "" {
			exec.Command("ip", "netns", "del", ns).Run()
		}
	}
}

// newNamespace creates a namespace named as netem names its own.
func newNamespace(ctx context.Context) (string, error) {
	name := fmt.Sprintf("httpslab-%d-%d", os.Getpid(), hostSerialBase+hostSerial.Add(1))
	if out, err := exec.CommandContext(ctx, "ip", "netns", "add", name).CombinedOutput(); err != nil {
		return "", fmt.Errorf("creating network namespace %s (needs root): %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return name, nil
}

// ipBatch runs ip's commands, one a line, in namespace ns.
func ipBatch(ctx context.Context, ns, cmds string) error {
	c := exec.CommandContext(ctx, "ip", "-n", ns, "-batch", "-")
	c.Stdin = strings.NewReader(cmds)
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("ip -n %s: %q: %w: %s", ns, cmds, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// pdeathKill has a child killed when this process ends.
func pdeathKill() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
