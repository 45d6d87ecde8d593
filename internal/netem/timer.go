package netem

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// timerSleeper sleeps with the kernel's timer precision without holding
// one of Go's scheduler slots: it arms a timerfd and waits for it in Go's
// network poller. Go's own timers fire up to a millisecond late when the
// process is idle (the poller waits in whole milliseconds), and a blocking
// nanosleep would keep a slot from the forwarder's other goroutines.
type timerSleeper struct {
	f  *os.File
	fd int
}

func newTimerSleeper() (*timerSleeper, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("creating a timerfd: %w", err)
	}
	// A non-blocking descriptor joins Go's poller.
	return &timerSleeper{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}, nil
}

// sleep returns after d, or at once if the sleeper was closed.
func (s *timerSleeper) sleep(d time.Duration) {
	// A zero expiry would disarm the timer instead of firing it.
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(d.Nanoseconds(), 1))}
	if err := unix.TimerfdSettime(s.fd, 0, &spec, nil); err != nil {
		time.Sleep(d)
		return
	}
	var expirations [8]byte
	_, _ = s.f.Read(expirations[:])
}

func (s *timerSleeper) close() { s.f.Close() }
