package netem

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// openTUN creates a TUN device named name (IFF_TUN|IFF_NO_PI: the file
// reads and writes bare IP packets) in the network namespace of the
// calling thread. The device is not persistent: the kernel removes it when
// the file is closed, also when the process dies.
func openTUN(name string) (*os.File, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return nil, fmt.Errorf("opening /dev/net/tun: %w (%v)", ErrPermission, err)
	}
	if err != nil {
		return nil, fmt.Errorf("opening /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("creating TUN device %s: %w", name, err)
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EPERM) {
			return nil, fmt.Errorf("creating TUN device %s: %w (%v)", name, ErrPermission, err)
		}
		return nil, fmt.Errorf("creating TUN device %s: %w", name, err)
	}
	// A non-blocking descriptor joins Go's poller, so Close wakes a
	// goroutine blocked in Read.
	return os.NewFile(uintptr(fd), "/dev/net/tun:"+name), nil
}

// inNamespace runs fn on an OS thread that has joined the network
// namespace nsFD, then moves the thread back. Sockets and devices that fn
// creates stay in the namespace. fn runs on a fresh goroutine, so the
// caller's thread never changes namespace.
func inNamespace(nsFD int, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("reading the current network namespace: %w", err)
			return
		}
		defer unix.Close(self)
		if err := unix.Setns(nsFD, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("entering the link namespace: %w", err)
			return
		}
		ferr := fn()
		if err := unix.Setns(self, unix.CLONE_NEWNET); err != nil {
			// The thread stays locked, so the runtime ends it with this
			// goroutine instead of reusing it in the wrong namespace.
			errc <- fmt.Errorf("leaving the link namespace: %w", err)
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

// disableIPv6 turns IPv6 off on a device of the calling thread's
// namespace, so that its router solicitations do not cross the link and
// show up in the packet counts. Errors are ignored: without IPv6 there is
// nothing to turn off.
func disableIPv6(dev string) {
	_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+dev+"/disable_ipv6", []byte("1"), 0o644)
}
