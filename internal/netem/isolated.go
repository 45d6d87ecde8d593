package netem

import (
	"context"
	"fmt"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Isolated is a private network namespace with nothing but loopback, for
// a client that must not see the host's interfaces: a browser drops its
// connections whenever an interface or an address of its namespace comes
// or goes, and on a shared machine other links' devices do so every few
// seconds. Its sockets reach the world only through listeners opened in
// it (Listen, ListenPacket), which their owner relays.
type Isolated struct {
	// Name is the namespace's name, as ip netns lists it:
	// httpslab-<pid>-<n>, removed with the stale links' namespaces when
	// its process is gone.
	Name      string
	fd        int
	closeOnce sync.Once
	closeErr  error
}

// Isolate creates an isolated namespace with loopback up. It needs root.
func Isolate(ctx context.Context) (*Isolated, error) {
	n := &Isolated{Name: fmt.Sprintf("%s%d-%d", nsPrefix, os.Getpid(), linkSerial.Add(1)), fd: -1}
	if err := run(ctx, "ip", "netns", "add", n.Name); err != nil {
		return nil, err
	}
	fd, err := unix.Open(nsPath(n.Name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		n.Close()
		return nil, fmt.Errorf("opening namespace %s: %w", n.Name, err)
	}
	n.fd = fd
	if err := run(ctx, "ip", "-n", n.Name, "link", "set", "lo", "up"); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// AddAddress gives the namespace's loopback the address ip, so that its
// clients reach a listener on ip without a route out.
func (n *Isolated) AddAddress(ctx context.Context, ip net.IP) error {
	bits := 32
	if ip.To4() == nil {
		bits = 128
	}
	return run(ctx, "ip", "-n", n.Name, "addr", "add", fmt.Sprintf("%s/%d", ip, bits), "dev", "lo")
}

// Listen opens a listener inside the namespace.
func (n *Isolated) Listen(ctx context.Context, network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := inNamespace(n.fd, func() error {
		var err error
		ln, err = (&net.ListenConfig{}).Listen(ctx, network, addr)
		return err
	})
	return ln, err
}

// ListenPacket opens a packet socket (UDP) inside the namespace.
func (n *Isolated) ListenPacket(ctx context.Context, network, addr string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := inNamespace(n.fd, func() error {
		var err error
		pc, err = (&net.ListenConfig{}).ListenPacket(ctx, network, addr)
		return err
	})
	return pc, err
}

// Command is argv run inside the namespace (ip netns exec).
func (n *Isolated) Command(argv []string) []string {
	return append([]string{"ip", "netns", "exec", n.Name}, argv...)
}

// Close removes the namespace, ending what still runs in it.
func (n *Isolated) Close() error {
	n.closeOnce.Do(func() {
		if n.fd >= 0 {
			unix.Close(n.fd)
		}
		n.closeErr = run(context.Background(), "ip", "netns", "delete", n.Name)
	})
	return n.closeErr
}
