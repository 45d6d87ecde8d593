package probe

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// roundTripper is an HTTP transport with connections to close.
type roundTripper interface {
	http.RoundTripper
	CloseIdleConnections()
}

// newRoundTripper builds the transport for one connection mode: its TLS
// configuration carries the session cache only when resuming.
// With early, HTTP/3 connections may send 0-RTT data.
func (c *Client) newRoundTripper(sessions tls.ClientSessionCache, early bool) (roundTripper, error) {
	tlsCfg, err := c.cfg.TLS.Config()
	if err != nil {
		return nil, err
	}
	tlsCfg.ClientSessionCache = sessions
	if c.cfg.Protocol == ProtoHTTP3 {
		return c.newHTTP3(tlsCfg, early), nil
	}
	switch c.cfg.Protocol {
	case ProtoHTTP11:
		tlsCfg.NextProtos = []string{"http/1.1"}
	case ProtoHTTP2:
		tlsCfg.NextProtos = []string{"h2"}
	default:
		tlsCfg.NextProtos = []string{"h2", "http/1.1"}
	}
	t := &http.Transport{
		Proxy:              nil, // measure the server, not a proxy
		DisableCompression: true,
		ForceAttemptHTTP2:  c.cfg.Protocol != ProtoHTTP11,
		MaxIdleConns:       16,
		IdleConnTimeout:    90 * time.Second,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := c.dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			c.remember(conn, conn)
			return conn, nil
		},
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			tc, err := c.dialer.DialTLS(ctx, network, addr, tlsCfg)
			if err != nil {
				return nil, err
			}
			c.remember(tc, tc.NetConn().(*transport.Conn))
			return tc, nil
		},
	}
	if c.cfg.Protocol == ProtoHTTP2 && c.url.Scheme == "http" {
		t.Protocols = new(http.Protocols)
		t.Protocols.SetUnencryptedHTTP2(true)
	}
	return t, nil
}

func (c *Client) newHTTP3(tlsCfg *tls.Config, early bool) roundTripper {
	dial := c.dialer.DialQUIC
	if early {
		dial = c.dialer.DialQUICEarly
	}
	idle := 10 * time.Second
	if c.cfg.Timeout > 0 {
		idle = min(idle, c.cfg.Timeout)
	}
	return &http3.Transport{
		TLSClientConfig:    tlsCfg,
		DisableCompression: true,
		QUICConfig:         &quic.Config{HandshakeIdleTimeout: idle},
		Dial: func(ctx context.Context, addr string, tlsCfg *tls.Config, qcfg *quic.Config) (*quic.Conn, error) {
			qc, err := dial(ctx, addr, tlsCfg, qcfg)
			if err != nil {
				return nil, err
			}
			c.rememberQUIC(qc)
			return qc.Conn, nil
		},
	}
}
