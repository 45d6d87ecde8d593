package labtest

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// WaitExit waits until process pid has ended (exited, reaped or not), or
// timeout passed, and reports whether it ended. It waits on a pidfd, which
// becomes readable when the process ends, rather than polling /proc, and
// works for any process, not only this one's children.
func WaitExit(pid int, timeout time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return errors.Is(err, unix.ESRCH) // no such process: it has ended
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(timeout)
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 {
			return false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, ms)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}
