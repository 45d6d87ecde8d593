package labtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"golang.org/x/sys/unix"
)

// accessLogWait bounds WaitAccessLog when ctx does not end sooner.
const accessLogWait = 5 * time.Second

// WaitAccessLog returns n's access log once it holds at least want lines.
// nginx writes a line after it sent the response, so a client can see
// the response before the line. It waits on inotify's events for the
// file, not by polling; when ctx ends first it returns the lines so far
// and ctx's error, and after accessLogWait the lines so far.
func WaitAccessLog(ctx context.Context, n *lab.Nginx, want int) ([]lab.AccessEntry, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("watching the access log: %w", err)
	}
	defer unix.Close(fd)
	if _, err := unix.InotifyAddWatch(fd, n.AccessLog, unix.IN_MODIFY); err != nil {
		return nil, fmt.Errorf("watching the access log: %w", err)
	}
	wake, release, err := waker(ctx)
	if err != nil {
		return nil, fmt.Errorf("watching the access log: %w", err)
	}
	defer release()
	deadline := time.Now().Add(accessLogWait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	events := make([]byte, 4096)
	for {
		// Read after the watch is set, so that no line is missed.
		log, err := n.ReadAccessLog()
		if err != nil || len(log) >= want {
			return log, err
		}
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 || ctx.Err() != nil {
			return log, ctx.Err()
		}
		_, err = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}, ms)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return log, fmt.Errorf("watching the access log: %w", err)
		}
		for { // drain the events: the log is read again in full
			if _, err := unix.Read(fd, events); err != nil {
				break
			}
		}
	}
}

// waker returns an eventfd that becomes readable when ctx ends, so that a
// poll wakes for it, and the function that releases it.
func waker(ctx context.Context) (fd int, release func(), err error) {
	fd, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return -1, nil, err
	}
	woken := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { unix.Write(fd, []byte{1, 0, 0, 0, 0, 0, 0, 0}); close(woken) })
	return fd, func() {
		if !stop() {
			<-woken // the write is done before the descriptor is closed
		}
		unix.Close(fd)
	}, nil
}
