package cli

import (
	"errors"
	"fmt"

	"github.com/httpslab/httpslab/internal/netem"
)

// startLink builds the emulated link the flags describe, with the hint a
// user needs when that fails.
func (e *env) startLink(f linkFlags) (*netem.Link, error) {
	cfg, err := f.config()
	if err != nil {
		return nil, err
	}
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
