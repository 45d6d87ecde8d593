package netem

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Supervise waits for c, a started command of Link.Cmd, passing on to it
// the signals that arrive on sigs, and returns its exit status the way
// shells report it: its exit code, or 128 plus the signal that ended it;
// an error when it could not be waited for.
// An os.Interrupt is not passed on when interactive is set: a terminal's
// Ctrl-C already reached the command, which shares the foreground process
// group. killAfter after the first signal the command is killed, after
// onKill is called (to say so).
func Supervise(c *exec.Cmd, sigs <-chan os.Signal, interactive bool, killAfter time.Duration, onKill func()) (int, error) {
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var kill <-chan time.Time
	for {
		select {
		case err := <-done:
			return exitStatus(err)
		case s := <-sigs:
			if s != os.Interrupt || !interactive {
				_ = c.Process.Signal(s)
			}
			if kill == nil {
				kill = time.After(killAfter)
			}
		case <-kill:
			onKill()
			_ = c.Process.Kill()
		}
	}
}

// exitStatus maps the end of a command to its exit status.
func exitStatus(err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var x *exec.ExitError
	if !errors.As(err, &x) {
		return 0, err
	}
	if ws, ok := x.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return x.ExitCode(), nil
}
