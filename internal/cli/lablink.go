package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/httpslab/httpslab/internal/netem"
)

// brokenPipe receives SIGPIPE once a link exists; nothing reads it.
var brokenPipe = make(chan os.Signal, 1)

// startLink builds the emulated link the flags describe, with the hint a
// user needs when that fails.
func (e *env) startLink(f linkFlags) (*netem.Link, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
	// A write to a closed standard output (httpslab ... | head) kills a Go
	// program with SIGPIPE unless it asks for the signal, and a killed
	// httpslab leaves the namespace, and the server inside, behind. Asked
	// for, the write fails with EPIPE instead and the link is removed as
	// the command ends. Commands started later get the default action back.
	signal.Notify(brokenPipe, syscall.SIGPIPE)
	link, err := netem.Start(e.ctx, cfg)
	if errors.Is(err, netem.ErrPermission) {
		return nil, withHint(err, "run it as root (sudo), or leave out --rtt, --jitter, --loss, --bandwidth and --profile")
	}
	if err != nil {
		return nil, withHint(fmt.Errorf("building the emulated link: %w", err),
			"the link needs /dev/net/tun, network namespaces (ip netns) and the ip command from iproute2")
	}
	return link, nil
}
