package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// CommandConfig is a server started from a command line, any server:
// caddy, h2o, a Go service, httpslab serve.
type CommandConfig struct {
	// Line is the command line of one command, the server, run by
	// /bin/sh as "exec LINE" (so quoting works as in a shell): the
	// process started is the server's own, whose CPU time is measured.
	Line string
	// CPUs, when set, keeps the server and every process it starts on
	// these CPUs (taskset -c syntax).
	CPUs string
	// Wrap, when set, prefixes the argv (ip netns exec NS, to start the
	// server inside a namespace).
	Wrap []string
	// Env is added to the server's environment (the link's addresses).
	Env []string
	// Dir is the server's working directory; "" means this process's.
	Dir string
}

// CommandProcess is a running server started from a command line.
type CommandProcess struct {
	cmd      *exec.Cmd
	output   *tailBuffer
	done     chan struct{}
	err      error
	stopOnce sync.Once
}

// outputLimit bounds what is kept of the server's output: its last
// lines, for an error message.
const outputLimit = 64 << 10

// StartCommand starts the server of cfg in its own process group.
func StartCommand(ctx context.Context, cfg CommandConfig) (*CommandProcess, error) {
	if strings.TrimSpace(cfg.Line) == "" {
		return nil, errors.New("starting the server: empty command")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	argv := append(append([]string(nil), cfg.Wrap...), "/bin/sh", "-c", "exec "+cfg.Line)
	if cfg.CPUs != "" {
		// taskset sets the affinity before the server runs, so that every
		// process it starts inherits it.
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			return nil, fmt.Errorf("pinning the server to CPUs %s: %w (install util-linux)", cfg.CPUs, err)
		}
		argv = append([]string{taskset, "-c", cfg.CPUs}, argv...)
	}
	p := &CommandProcess{output: &tailBuffer{max: outputLimit}, done: make(chan struct{})}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	p.cmd.Stdout, p.cmd.Stderr, p.cmd.Dir = p.output, p.output, cfg.Dir
	if len(cfg.Env) > 0 {
		p.cmd.Env = append(os.Environ(), cfg.Env...)
	}
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server %q: %w", cfg.Line, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	return p, nil
}

// PID returns the server's process id.
func (p *CommandProcess) PID() int { return p.cmd.Process.Pid }

// Exited is closed when the server's process has ended.
func (p *CommandProcess) Exited() <-chan struct{} { return p.done }

// ExitError says how the server ended, with the last line it wrote; nil
// while it runs.
func (p *CommandProcess) ExitError() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	msg := "it exited"
	if p.err != nil {
		msg = fmt.Sprintf("it exited (%v)", p.err)
	}
	if lines := p.OutputLines(1); len(lines) > 0 {
		msg += ": " + lines[0]
	}
	return errors.New("the server stopped: " + msg)
}

// OutputLines returns the last n lines the server wrote to its standard
// output and error.
func (p *CommandProcess) OutputLines(n int) []string {
	text := strings.TrimSpace(p.output.String())
	if text == "" {
		return nil
	}
	lines := strings.Split(text, "\n")
	return lines[max(0, len(lines)-n):]
}

// Close stops the server: SIGTERM to its process group, SIGKILL to the
// group if it has not ended after 5 seconds. It may be called more than
// once.
func (p *CommandProcess) Close() error {
	p.stopOnce.Do(func() {
		_ = syscall.Kill(-p.PID(), syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
			<-p.done
		}
		// Whatever the server started and left in its group goes too.
		_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
	})
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
