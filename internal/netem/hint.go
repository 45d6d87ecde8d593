package netem

import "errors"

// Hint says what to do about an error of Start, in the words of the link
// flags that ask for a link: run as root, or provide what the link is
// built from.
func Hint(err error) string {
	if errors.Is(err, ErrPermission) {
		return "run it as root (sudo), or leave out --rtt, --jitter, --loss, --bandwidth and --profile"
	}
	return "the link needs /dev/net/tun, network namespaces (ip netns) and the ip command from iproute2"
}
