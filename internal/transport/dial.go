package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/netip"
	"time"
)

// Dialer opens the connections of a measurement. The zero value dials
// like net.Dialer (DNS, Happy Eyeballs across the addresses). Each dial
// attempt and the DNS lookup are reported to the httptrace.ClientTrace of
// the context (net.Dialer does that itself), and DialTLS adds the TLS
// handshake hooks, so a caller sees every attempt with its timing.
type Dialer struct {
	Routes // --resolve, --connect-to, -4 and -6
	// ConnectTimeout bounds each TCP connect; 0 leaves it to the context.
	ConnectTimeout time.Duration
	// KeepAlive is the TCP keep-alive period; 0 means the Go default and
	// negative turns keep-alives off.
	KeepAlive time.Duration
}

// DialContext opens a TCP connection for addr, the host:port of a URL,
// with --connect-to and --resolve applied. Several resolved addresses are
// tried in order until one answers.
func (d *Dialer) DialContext(ctx context.Context, network, addr string) (*Conn, error) {
	r, err := d.route(addr)
	if err != nil {
		return nil, err
	}
	nd := net.Dialer{Timeout: d.ConnectTimeout, KeepAlive: d.KeepAlive}
	if network == "" || network == "tcp" {
		network = d.network("tcp")
	}
	if r.addrs == nil {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(r.host, r.port))
		if err != nil {
			return nil, err
		}
		return NewConn(c), nil
	}
	var errs []error
	for _, a := range r.addrs {
		c, err := nd.DialContext(ctx, network, net.JoinHostPort(a.String(), r.port))
		if err == nil {
			return NewConn(c), nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// DialTLS opens a TCP connection for addr and runs the TLS handshake on
// it with a clone of cfg (ServerName defaults to addr's host). The
// *Conn under the returned connection, reachable with NetConn, holds the
// byte counts, the handshake's share among them and the kernel RTT.
func (d *Dialer) DialTLS(ctx context.Context, network, addr string, cfg *tls.Config) (*tls.Conn, error) {
	raw, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg = withServerName(cfg, addr)
	trace := httptrace.ContextClientTrace(ctx)
	if trace != nil && trace.TLSHandshakeStart != nil {
		trace.TLSHandshakeStart()
	}
	tc := tls.Client(raw, cfg)
	err = tc.HandshakeContext(ctx)
	raw.markHandshake()
	if trace != nil && trace.TLSHandshakeDone != nil {
		trace.TLSHandshakeDone(tc.ConnectionState(), err)
	}
	if err != nil {
		raw.Close()
		return nil, err
	}
	return tc, nil
}

// withServerName returns cfg, cloned with ServerName set to addr's host
// when it is empty.
func withServerName(cfg *tls.Config, addr string) *tls.Config {
	cfg = cfg.Clone()
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		cfg.ServerName = host
	}
	return cfg
}

// Lookup returns the addresses that the connections for addr, the
// host:port of a URL, go to: --connect-to applies first, then --resolve,
// as in curl; a host in neither that is not an address is looked up in
// DNS (reported to the context's trace), keeping the IP version asked for.
func (d *Dialer) Lookup(ctx context.Context, addr string) ([]netip.AddrPort, error) {
	r, err := d.route(addr)
	if err != nil {
		return nil, err
	}
	port, _ := parsePort(r.port)
	addrs := r.addrs
	if addrs == nil {
		if ip, err := netip.ParseAddr(r.host); err == nil {
			addrs = d.filter([]netip.Addr{ip})
		} else {
			ips, err := net.DefaultResolver.LookupNetIP(ctx, d.network("ip"), r.host)
			if err != nil {
				return nil, err
			}
			addrs = d.filter(ips)
		}
	}
	if len(addrs) == 0 {
		if d.IPVersion != 0 {
			return nil, fmt.Errorf("no IPv%d address for %s", d.IPVersion, r.host)
		}
		return nil, fmt.Errorf("no usable address for %s", r.host)
	}
	out := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		out[i] = netip.AddrPortFrom(a, uint16(port))
	}
	return out, nil
}
