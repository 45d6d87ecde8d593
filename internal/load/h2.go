package load

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// dialH2 opens a TLS connection that negotiated h2, or for an http://
// URL a plain one (h2c with prior knowledge), and wraps it in a net/http
// client connection.
func (r *runner) dialH2(deadline time.Time, ev *event) (muxConn, error) {
	nc, err := r.ep.dial(r.ctx, deadline, r.now, ev)
	if err != nil {
		return nil, err
	}
	// The Transport hands over the connection dialed and timed above; it
	// is used for this one connection only.
	var protos http.Protocols
	// DisableCompression: net/http would add Accept-Encoding: gzip, which
	// the other clients do not send, and count bodies decompressed.
	tr := &http.Transport{Protocols: &protos, MaxResponseHeaderBytes: r.cfg.MaxHeaderBytes, DisableCompression: true}
	handOver := func(context.Context, string, string) (net.Conn, error) { return nc, nil }
	scheme := "https"
	if r.ep.tls == nil {
		protos.SetUnencryptedHTTP2(true)
		tr.DialContext, scheme = handOver, "http"
	} else {
		if err := requireH2(nc); err != nil {
			return nil, err
		}
		protos.SetHTTP2(true)
		tr.DialTLSContext = handOver
	}
	cc, err := tr.NewClientConn(r.ctx, scheme, r.ep.addr)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("starting HTTP/2: %w", err)
	}
	return cc, nil
}

// h3Conn is an HTTP/3 client connection with its QUIC connection.
type h3Conn struct {
	*http3.ClientConn
	qc *quic.Conn
}

func (c h3Conn) Close() error { return c.qc.CloseWithError(0, "") }

// dialH3 opens a QUIC connection (transport and TLS handshake in one,
// reported as the TLS phase) and starts HTTP/3 on it.
func (r *runner) dialH3(deadline time.Time, ev *event) (muxConn, error) {
	ev.kind = handshakeEvent
	ev.start = r.now()
	ctx, cancel := context.WithDeadline(r.ctx, deadline)
	defer cancel()
	qc, err := connect(ctx, r.ep, func(ctx context.Context, i int) (*quic.Conn, error) {
		return transport.DialQUICAddr(ctx, r.ep.addrs[i], r.ep.shares.config(), &quic.Config{})
	})
	ev.end = r.now()
	ev.tls = ev.end - ev.start
	if err != nil {
		return nil, fmt.Errorf("QUIC handshake: %w", err)
	}
	r.ep.noteTLS(ev, qc.ConnectionState().TLS)
	if ev.version == 0 {
		qc.CloseWithError(0, "")
		return nil, errors.New("QUIC handshake: no TLS state")
	}
	tr := &http3.Transport{MaxResponseHeaderBytes: int(min(r.cfg.MaxHeaderBytes, math.MaxInt32)), DisableCompression: true}
	return h3Conn{ClientConn: tr.NewClientConn(qc), qc: qc}, nil
}

// requireH2 checks that a TLS connection negotiated HTTP/2 by ALPN and
// closes it if not.
func requireH2(nc net.Conn) error {
	if p := nc.(*tls.Conn).ConnectionState().NegotiatedProtocol; p != "h2" {
		nc.Close()
		return fmt.Errorf("the server did not negotiate HTTP/2 (ALPN %q)", p)
	}
	return nil
}
