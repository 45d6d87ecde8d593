package page

import (
	"errors"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/transport"
)

// Hint suggests what to do about a page comparison that failed with err,
// in the words of page's flags: a server that does not speak a protocol
// asked for, a document that redirects, no HTTP/3 on the port, or else
// transport.Hint's.
func Hint(err error) string {
	switch {
	case errors.Is(err, ErrProtocol):
		return "the server does not speak this protocol for every resource; leave it out of --protocols (or --http2/--http3)"
	case errors.Is(err, ErrRedirect):
		return "give the URL the page is served at"
	case errors.Is(err, syscall.ECONNREFUSED) && strings.Contains(err.Error(), "udp"):
		return "nothing answers QUIC on that port: the server has no HTTP/3; leave h3 out of --protocols"
	}
	return transport.Hint(err)
}
