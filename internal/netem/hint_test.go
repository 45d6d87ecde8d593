package netem

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestHint: a missing privilege asks for root, anything else names what
// the link is built from.
func TestHint(t *testing.T) {
	if h := Hint(fmt.Errorf("building the network link: %w", ErrPermission)); !strings.HasPrefix(h, "run it as root") {
		t.Errorf("Hint(ErrPermission) = %q; want root asked for", h)
	}
	if h := Hint(errors.New("open /dev/net/tun: no such file or directory")); !strings.Contains(h, "/dev/net/tun") {
		t.Errorf("Hint(no TUN) = %q; want what the link needs", h)
	}
}
