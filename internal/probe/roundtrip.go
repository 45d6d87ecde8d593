package probe

import (
	"context"
	"crypto/tls"
	"net/http"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// newTLSConfig builds the TLS configuration of one connection mode, a
// clone of the base one: it carries the session cache only when resuming.
func (c *Client) newTLSConfig(sessions tls.ClientSessionCache) *tls.Config {
	cfg := c.baseTLS.Clone()
	cfg.ClientSessionCache = sessions
	switch c.cfg.Protocol {
	case transport.HTTP1:
		cfg.NextProtos = []string{"http/1.1"}
	case transport.HTTP2:
		cfg.NextProtos = []string{"h2"}
	case transport.HTTP3:
		cfg.NextProtos = []string{http3.NextProtoH3}
	default:
		cfg.NextProtos = []string{"h2", "http/1.1"}
		if transport.LegacyOnly(cfg.MaxVersion) {
			// HTTP/2 needs TLS 1.2 or later (RFC 9113, section 9.2).
			cfg.NextProtos = []string{"http/1.1"}
		}
	}
	return cfg
}

// roundTrip sends req over HTTP/3 or over the live TCP connection.
// An HTTP/2 or HTTP/3 header over the limit becomes a
// transport.HeaderLimitError, as HTTP/1.1's is.
func (c *Client) roundTrip(req *http.Request, rec *recorder) (*http.Response, error) {
	if c.h3 == nil {
		resp, err := c.roundTripTCP(req, rec)
		return resp, transport.AsHeaderLimit(err, c.cfg.MaxHeaderBytes)
	}
	resp, err := c.h3.RoundTrip(req)
	if err == nil {
		rec.gotFinalResponse()
	}
	return resp, transport.AsHeaderLimit(err, c.cfg.MaxHeaderBytes)
}

// newHTTP3 returns an HTTP/3 transport whose connections are dialed by
// package transport on counted UDP sockets. With early, a resumed
// connection may send 0-RTT data.
func (c *Client) newHTTP3(tlsCfg *tls.Config, early bool) *http3.Transport {
	idle := 10 * time.Second
	if c.cfg.Timeout > 0 {
		idle = min(idle, c.cfg.Timeout)
	}
	dial := c.dialer.DialQUIC
	if early {
		dial = c.dialer.DialQUICEarly
	}
	return &http3.Transport{
		TLSClientConfig:        tlsCfg,
		DisableCompression:     true,
		MaxResponseHeaderBytes: int(transport.HeaderLimit(c.cfg.MaxHeaderBytes)),
		QUICConfig:             &quic.Config{HandshakeIdleTimeout: idle},
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
