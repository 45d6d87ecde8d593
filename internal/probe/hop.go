package probe

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// hopState is what the GotConn hook learns about the connection: which
// one it is and its byte counts at that moment.
type hopState struct {
	entry  connEntry
	known  bool
	before transport.Counts // application bytes so far
}

// hop sends one request and reads the whole response. It returns the
// hop's Timeline and, for a redirect, where it points.
func (c *Client) hop(ctx context.Context, u *url.URL, method string, body []byte, zeroRTT bool) (Timeline, *url.URL, error) {
	start := time.Now()
	tl := Timeline{URL: u.String(), Method: method, Started: start}
	var st hopState // written in the GotConn hook under the recorder's lock, read after seal
	rec := newRecorder(start, func(conn net.Conn) func() time.Time {
		if st.entry, st.known = c.lookup(conn); st.known {
			st.before = st.entry.app()
			return st.entry.lastWrite
		}
		return nil
	})
	req, sent, err := c.newRequest(httptrace.WithClientTrace(ctx, rec.trace()), u, method, body, zeroRTT)
	if err != nil {
		return tl, nil, err
	}
	tl.RequestHeader = req.Header.Clone()
	if req.Host != "" { // set from a Host field of Config.Header
		tl.RequestHeader["Host"] = []string{req.Host}
	}
	resp, err := c.roundTrip(req, rec)
	if err != nil {
		err = fmt.Errorf("%s %s: %w", method, clipURL(u), err)
		c.fill(&tl, rec.seal(time.Time{}), st, nil)
		tl.Bytes.RequestBodySize = sent.sentSize()
		tl.Err = err.Error()
		return tl, nil, err
	}
	if SendsContentLength(req.Method, req.ContentLength, resp.ProtoMajor == 1) {
		tl.RequestHeader["Content-Length"] = []string{strconv.FormatInt(req.ContentLength, 10)}
	}
	var n int64
	if !c.cfg.FailOnHTTPError || resp.StatusCode < 400 {
		n, err = io.Copy(io.Discard, resp.Body)
	} // else, as curl -f: the body of an error is not read
	bodyDone := time.Now()
	resp.Body.Close()
	tl.Bytes.RequestBodySize = sent.sentSize()
	if err != nil {
		err = fmt.Errorf("%s %s: reading the body: %w", method, clipURL(u), err)
		bodyDone = time.Time{}
	}
	c.waitHandshake(ctx, rec)
	c.fill(&tl, rec.seal(bodyDone), st, resp)
	tl.Bytes.BodySize = n
	if err != nil {
		tl.Err = err.Error()
		return tl, nil, err
	}
	return tl, redirect(u, resp), nil
}

// waitHandshake waits, briefly, for a QUIC handshake that was still
// running when the response arrived (0-RTT), so its end is recorded.
func (c *Client) waitHandshake(ctx context.Context, rec *recorder) {
	rec.mu.Lock()
	conn := rec.conn
	rec.mu.Unlock()
	if conn == nil {
		return
	}
	e, ok := c.lookup(conn)
	if !ok || e.quic == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, handshakeWait)
	defer cancel()
	e.quic.WaitHandshake(ctx) // an incomplete handshake leaves the TLS phase absent
}

// fill completes tl from what the recorder saw, the connection's counters
// and the response (nil when the request failed).
func (c *Client) fill(tl *Timeline, r recorded, st hopState, resp *http.Response) {
	tl.Events = r.ev
	tl.Phases = r.ev.Phases()
	if !r.ev.BodyDone.IsZero() {
		tl.Total = r.ev.BodyDone.Sub(r.ev.Start)
	} else {
		tl.Total = time.Since(r.ev.Start)
	}
	tl.Dials, tl.Informational, tl.InformationalCount, tl.Reused = r.dials, r.info, r.infos, r.reused
	connected, ok := connectedDial(r.dials)
	if ok {
		tl.RTT.Connect = connected.Duration
	}
	if r.conn != nil {
		tl.RemoteAddr, tl.LocalAddr = r.conn.RemoteAddr().String(), r.conn.LocalAddr().String()
	} else {
		tl.RemoteAddr = connected.Addr // the handshake failed on it; "" when no dial connected
	}
	cs := r.tlsState
	if resp != nil {
		tl.Proto, tl.Status, tl.Header = resp.Proto, resp.StatusCode, wireHeader(resp)
		tl.Bytes.HeaderSize = headerSize(resp, tl.Header)
		if resp.TLS != nil {
			cs = resp.TLS
		}
	}
	if cs != nil && cs.Version != 0 && (resp != nil || r.tlsErr == nil) {
		early := st.known && st.entry.quic != nil && st.entry.quic.ConnectionState().Used0RTT
		tl.TLS = tlsFacts(cs, early)
		if !tl.TLS.Verified {
			tl.TLS.VerifyResult, tl.TLS.VerifyError = checkChain(cs, c.baseTLS.RootCAs)
		}
	}
	if st.known {
		c.fillWire(tl, st, r.reused)
	}
}

// fillWire sets the byte counts and the RTT from the connection. On a
// reused connection the request and response bytes are the application
// bytes since the GotConn snapshot; on a new one they are all bytes since
// the end of the handshake, so that what a protocol sends before the
// request (the HTTP/2 preface and SETTINGS) is counted too. The
// handshake's bytes are counted once, on the request that opened the
// connection.
func (c *Client) fillWire(tl *Timeline, st hopState, reused bool) {
	if hs, ok := st.entry.handshake(); ok && !reused {
		tl.Bytes.HandshakeWritten, tl.Bytes.HandshakeRead = hs.Written, hs.Read
	}
	before := st.before
	if !reused {
		before = transport.Counts{}
	}
	d := st.entry.app().Sub(before)
	tl.Bytes.RequestWritten, tl.Bytes.ResponseRead = max(d.Written, 0), max(d.Read, 0)
	switch {
	case st.entry.tcp != nil:
		if k, err := st.entry.tcp.RTT(); err == nil {
			tl.RTT.Kernel, tl.RTT.KernelVar = k.RTT, k.RTTVar
		}
	case st.entry.quic != nil:
		s := st.entry.quic.ConnectionStats()
		tl.RTT.Kernel, tl.RTT.KernelVar = s.SmoothedRTT, s.MeanDeviation
	}
}

// connectedDial returns the TCP dial attempt that connected; false when
// none did.
func connectedDial(dials []Dial) (Dial, bool) {
	for _, d := range dials {
		if d.Err == "" && d.Duration > 0 && d.Network != "udp" {
			return d, true
		}
	}
	return Dial{}, false
}

// maxURLInError bounds the URL an error message quotes: a redirect's
// Location can be as long as the header limit, a megabyte, and an
// error that echoed it whole would bury its own message.
const maxURLInError = 256

// clipURL is u for an error message: redacted, and past maxURLInError
// bytes cut, with its full length said.
func clipURL(u *url.URL) string {
	s := u.Redacted()
	if len(s) <= maxURLInError {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:maxURLInError], ""), len(s))
}
