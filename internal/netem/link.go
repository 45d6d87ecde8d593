// Package netem is a user-space network link with emulated delay, jitter,
// loss and bandwidth between the host and a private network namespace.
//
// The kernels httpslab runs on often lack tc netem, so the link is built
// from two TUN devices: one in the host's namespace (the client side) and
// one in a namespace that Start creates (the server side). Two goroutines
// per direction read each IP packet from one device and write it to the
// other after the configured one-way delay, random loss and rate limit.
// Servers run behind the link through Link.Listen and Link.ListenPacket,
// which open sockets inside the namespace, or as commands wrapped by
// Link.Command. Addresses come from 198.18.0.0/15, the range set aside for
// network benchmarks (RFC 2544). Building a link needs root.
package netem

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Link is a running emulated link. The host reaches ServerIP through it;
// servers inside the namespace see clients coming from ClientIP.
type Link struct {
	ServerIP, ClientIP net.IP
	// Namespace is the name of the server side's network namespace, as
	// ip netns lists it: httpslab-<pid>-<n>.
	Namespace string
	// Device names the TUN devices: the two ends have the same name, one
	// in the host's namespace and one in Namespace.
	Device string
	// Config is the link's setting.
	Config Config

	nsFD               int
	client, server     *os.File
	toServer, toClient *pipe
	closeOnce          sync.Once
	closeErr           error
}

// Stats counts the packets that crossed the link, per direction.
type Stats struct {
	ToServer Direction // client to server (upload)
	ToClient Direction // server to client (download)
}

// linkSerial numbers the links of this process.
var linkSerial atomic.Int64

// Start builds a link with the given setting: it removes what earlier runs
// left behind (CleanStale), creates the namespace and the two devices,
// addresses them and starts forwarding. It needs root (CAP_NET_ADMIN and
// CAP_SYS_ADMIN); without, the error wraps ErrPermission.
func Start(ctx context.Context, cfg Config) (*Link, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("building the network link: %w", ErrPermission)
	}
	if err := CleanStale(); err != nil {
		return nil, err
	}
	l := &Link{Config: cfg, nsFD: -1}
	l.Namespace = fmt.Sprintf("%s%d-%d", nsPrefix, os.Getpid(), linkSerial.Add(1))
	if err := l.build(ctx); err != nil {
		l.Close()
		return nil, err
	}
	seed := uint64(time.Now().UnixNano())
	l.toServer = newPipe(l.client, l.server, newShaper(cfg, cfg.upload(), seed))
	l.toClient = newPipe(l.server, l.client, newShaper(cfg, cfg.Bandwidth, seed+1))
	l.toServer.start()
	l.toClient.start()
	return l, nil
}

// ErrPermission is returned by Start when the process may not create
// network namespaces and devices.
var ErrPermission = errors.New("creating a network namespace needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN)")

// build creates the namespace, claims an address pair, opens both devices
// and configures them.
func (l *Link) build(ctx context.Context) error {
	if err := run(ctx, "ip", "netns", "add", l.Namespace); err != nil {
		if strings.Contains(err.Error(), "not permitted") {
			return fmt.Errorf("%w: %v", ErrPermission, err)
		}
		return err
	}
	fd, err := unix.Open(nsPath(l.Namespace), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening network namespace %s: %w", l.Namespace, err)
	}
	l.nsFD = fd
	if err := l.openDevices(); err != nil {
		return err
	}
	return l.configure(ctx)
}

// openDevices claims a free address slot by creating the client device,
// whose name carries the slot number, then creates the server device
// inside the namespace.
func (l *Link) openDevices() error {
	s, client, err := claimSlot()
	if err != nil {
		return err
	}
	l.client = client
	l.ClientIP, l.ServerIP = s.clientIP(), s.serverIP()
	l.Device = s.device()
	disableIPv6(l.Device)
	return inNamespace(l.nsFD, func() error {
		f, err := openTUN(l.Device)
		if err != nil {
			return err
		}
		l.server = f
		disableIPv6(l.Device)
		return nil
	})
}

// tunQueue is the transmit queue of each device, in packets: what a
// sender's kernel may hand to the device while the forwarder is not
// reading it. At the TUN default of 500, a server that sent a burst of a
// few MB while the forwarder waited for a core (a browser on the same two
// cores) lost about a tenth of its packets there, losses the link was not
// set to have, and recovered them by retransmission timeouts.
const tunQueue = 10000

// configure addresses both devices as a point-to-point pair with MTU 1500
// and a transmit queue of tunQueue packets, and brings them and the
// namespace's loopback up.
func (l *Link) configure(ctx context.Context) error {
	host := fmt.Sprintf("addr add %s peer %s dev %s\nlink set dev %s mtu 1500 txqueuelen %d up\n",
		l.ClientIP, l.ServerIP, l.Device, l.Device, tunQueue)
	if err := runBatch(ctx, "", host); err != nil {
		return err
	}
	ns := fmt.Sprintf("link set dev lo up\naddr add %s peer %s dev %s\nlink set dev %s mtu 1500 txqueuelen %d up\n",
		l.ServerIP, l.ClientIP, l.Device, l.Device, tunQueue)
	return runBatch(ctx, l.Namespace, ns)
}

// Listen opens a stream listener inside the link's namespace; its
// signature matches lab.Config.Listen. Use ServerIP (or "" for all
// addresses of the namespace) as the host.
func (l *Link) Listen(ctx context.Context, network, addr string) (net.Listener, error) {
	return listenIn(ctx, l, network, addr, (*net.ListenConfig).Listen)
}

// ListenPacket opens a packet socket inside the link's namespace; its
// signature matches lab.Config.ListenPacket.
func (l *Link) ListenPacket(ctx context.Context, network, addr string) (net.PacketConn, error) {
	return listenIn(ctx, l, network, addr, (*net.ListenConfig).ListenPacket)
}

// listenIn opens a socket with listen inside the link's namespace: a
// socket keeps the namespace it was made in.
func listenIn[S any](ctx context.Context, l *Link, network, addr string,
	listen func(*net.ListenConfig, context.Context, string, string) (S, error)) (S, error) {
	var s S
	err := inNamespace(l.nsFD, func() error {
		var err error
		s, err = listen(&net.ListenConfig{}, ctx, network, addr)
		return err
	})
	if err != nil {
		var none S
		return none, fmt.Errorf("listening on %s inside %s: %w", addr, l.Namespace, err)
	}
	return s, nil
}

// Command wraps a command line so that it runs inside the link's namespace
// (ip netns exec), for example nginx via lab.NginxConfig.Command.
func (l *Link) Command(argv []string) []string {
	return append([]string{"ip", "netns", "exec", l.Namespace}, argv...)
}

// Cmd returns a command that runs argv inside the link's namespace, with
// the link's addresses in its environment: HTTPSLAB_SERVER_IP (its own),
// HTTPSLAB_CLIENT_IP (the host's end of the link) and HTTPSLAB_NAMESPACE.
// The command dies with this process: killed with SIGKILL, this process
// could not end it, and it would serve on, unreachable, until the next
// run cleaned up.
func (l *Link) Cmd(argv []string) *exec.Cmd {
	argv = l.Command(argv)
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), "HTTPSLAB_SERVER_IP="+l.ServerIP.String(),
		"HTTPSLAB_CLIENT_IP="+l.ClientIP.String(), "HTTPSLAB_NAMESPACE="+l.Namespace)
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return c
}

// Stats returns the packet counts so far.
func (l *Link) Stats() Stats {
	var s Stats
	if l.toServer != nil {
		s.ToServer = l.toServer.snapshot()
	}
	if l.toClient != nil {
		s.ToClient = l.toClient.snapshot()
	}
	return s
}

// Close stops forwarding, removes both devices, ends the processes still
// running inside the namespace and removes it. It is safe to call twice.
func (l *Link) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.close() })
	return l.closeErr
}

func (l *Link) close() error {
	var errs []error
	// Closing a device wakes its reader; the kernel then removes it.
	for _, f := range []*os.File{l.client, l.server} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	for _, p := range []*pipe{l.toServer, l.toClient} {
		if p != nil {
			p.stop()
		}
	}
	if l.nsFD >= 0 {
		unix.Close(l.nsFD)
	}
	errs = append(errs, removeNamespace(l.Namespace))
	return errors.Join(errs...)
}
