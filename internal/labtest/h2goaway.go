package labtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"golang.org/x/net/http2"
)

// H2GoAwayAfter is an HTTP/2 server with prior knowledge (h2c, plain
// TCP) that answers the first n requests of each connection with a 200
// and then sends GOAWAY naming the last of them, as nginx does after
// keepalive_requests: the streams the client opened past it are refused
// unprocessed and never answered. With n = 0 it sends GOAWAY with a last
// stream id of 0 at once, refusing everything. Replies counts the 200s.
func H2GoAwayAfter(n int) Mode {
	return Mode{name: fmt.Sprintf("HTTP/2 GOAWAY after %d", n), serve: func(ctx context.Context, s *Misbehaving, c net.Conn) {
		serveGoAway(ctx, s, c, n)
	}}
}

// h2Status200 is the HPACK block of ":status: 200", a reference to the
// static table (RFC 7541, appendix A): valid whatever header table size
// the client allows.
var h2Status200 = []byte{0x88}

func serveGoAway(ctx context.Context, s *Misbehaving, c net.Conn, n int) {
	c.SetDeadline(time.Now().Add(endlessTime))
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings() != nil || n == 0 && fr.WriteGoAway(0, http2.ErrCodeNo, nil) != nil {
		return
	}
	answered := 0
	for ctx.Err() == nil {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() && fr.WriteSettingsAck() != nil {
				return
			}
		case *http2.HeadersFrame:
			if answered == n {
				continue // past the GOAWAY: refused
			}
			s.replies.Add(1)
			if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: h2Status200,
				EndStream: true, EndHeaders: true}) != nil {
				s.replies.Add(-1)
				return
			}
			if answered++; answered == n && fr.WriteGoAway(f.StreamID, http2.ErrCodeNo, nil) != nil {
				return
			}
		}
	}
}
