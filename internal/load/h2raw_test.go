package load

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"

	"github.com/httpslab/httpslab/internal/labtest"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// rawH2 is the server side of one connection of a raw HTTP/2 test server:
// it speaks h2c with prior knowledge, and the test's handler decides every
// frame, so that it can misbehave as a hostile or broken server does.
type rawH2 struct {
	fr      *http2.Framer
	nc      net.Conn
	written *atomic.Int64 // bytes the server wrote on all connections
}

// countingConn counts what is written to a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// serveRawH2 starts a raw HTTP/2 server on loopback that reads each
// connection's preface, sends settings and hands the connection to
// handle. It returns the http:// URL to run against and the count of
// bytes written.
func serveRawH2(t *testing.T, settings []http2.Setting, handle func(*rawH2)) (string, *atomic.Int64) {
	t.Helper()
	var written atomic.Int64
	addr := labtest.ServeTCP(t, func(nc net.Conn) {
		defer nc.Close()
		preface := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(nc, preface); err != nil || string(preface) != http2.ClientPreface {
			return
		}
		cc := countingConn{Conn: nc, n: &written}
		c := &rawH2{fr: http2.NewFramer(cc, nc), nc: nc, written: &written}
		if err := c.fr.WriteSettings(settings...); err != nil {
			return
		}
		handle(c)
	})
	return "http://" + addr + "/", &written
}

// next returns the client's next HEADERS, DATA or RST_STREAM frame (or an
// error), acknowledging SETTINGS and PING on the way.
func (c *rawH2) next() (http2.Frame, error) {
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			return nil, err
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := c.fr.WriteSettingsAck(); err != nil {
					return nil, err
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				if err := c.fr.WritePing(true, f.Data); err != nil {
					return nil, err
				}
			}
		case *http2.HeadersFrame, *http2.DataFrame, *http2.RSTStreamFrame:
			return f, nil
		}
	}
}

// nextRequest returns the stream id of the client's next request, after
// its HEADERS frame: 0 when the connection ended first.
func (c *rawH2) nextRequest() uint32 {
	for {
		f, err := c.next()
		if err != nil {
			return 0
		}
		if h, ok := f.(*http2.HeadersFrame); ok {
			return h.StreamID
		}
	}
}

// writeBlock sends a header block on stream id: a HEADERS frame and as
// many CONTINUATION frames as the block needs.
func (c *rawH2) writeBlock(id uint32, block []byte, endStream bool) error {
	const max = 16384
	first := block[:min(max, len(block))]
	rest := block[len(first):]
	err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first,
		EndStream: endStream, EndHeaders: len(rest) == 0})
	for err == nil && len(rest) > 0 {
		frag := rest[:min(max, len(rest))]
		rest = rest[len(frag):]
		err = c.fr.WriteContinuation(id, len(rest) == 0, frag)
	}
	return err
}

// hpackBlock encodes fields without the dynamic table, as a server must
// for the fast client (header table size 0).
func hpackBlock(fields ...hpack.HeaderField) []byte {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.SetMaxDynamicTableSizeLimit(0)
	for _, f := range fields {
		_ = enc.WriteField(f)
	}
	return buf.Bytes()
}

// errorOf returns the first sample error of a result that is of type E.
func errorOf[E error](res *Result) (E, bool) {
	for _, err := range res.ErrorSamples {
		var e E
		if errors.As(err, &e) {
			return e, true
		}
	}
	var zero E
	return zero, false
}
