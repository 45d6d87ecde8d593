package tlsscan

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// HTTP3Result is what the HTTP/3 check found.
type HTTP3Result struct {
	// Advertised is true when Alt-Svc names h3; Port is its port.
	Advertised bool   `json:"advertised"`
	Port       string `json:"port,omitempty"`
	// Reachable is true when an HTTP/3 request over QUIC succeeded.
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
	// Handshake is the QUIC handshake time of the first connection.
	Handshake Duration `json:"handshake_ns,omitempty"`
	// Resumed and EarlyData: the second connection resumed, and the
	// server accepted its 0-RTT request.
	Resumed   bool `json:"resumed"`
	EarlyData bool `json:"early_data"`
}

// altSvcH3Port returns the port of the h3 alternative in an Alt-Svc
// header value such as `h3=":443"; ma=86400, h3-29=":443"`.
func altSvcH3Port(v string) (string, bool) {
	for _, alt := range strings.Split(v, ",") {
		proto, rest, ok := strings.Cut(strings.TrimSpace(alt), "=")
		if !ok || proto != "h3" {
			continue
		}
		authority, _, _ := strings.Cut(rest, ";")
		authority = strings.Trim(strings.TrimSpace(authority), `"`)
		_, port, err := net.SplitHostPort(authority)
		if err == nil && port != "" {
			return port, true
		}
	}
	return "", false
}

// checkHTTP3 makes one HTTP/3 request, then a second on a new connection
// with the session from the first, sent as 0-RTT early data.
func (t *target) checkHTTP3(ctx context.Context, altSvc string) HTTP3Result {
	var res HTTP3Result
	res.Port, res.Advertised = altSvcH3Port(altSvc)
	if !res.Advertised {
		return res
	}
	host, _, _ := net.SplitHostPort(t.addr)
	h := h3Client{url: "https://" + net.JoinHostPort(host, res.Port) + t.path, timeout: t.timeout, tls: t.config(tls.VersionTLS13),
		dialer: t.dialer, maxHeader: t.maxHeader}
	h.tls.NextProtos = nil
	h.tls.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	_, handshake, err := h.get(ctx, http.MethodGet)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Reachable, res.Handshake = true, handshake
	conn, _, err := h.get(ctx, http3.MethodGet0RTT)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	cs := conn.ConnectionState()
	res.Resumed, res.EarlyData = cs.TLS.DidResume, cs.Used0RTT
	return res
}

// h3Client makes HTTP/3 requests, each on a new QUIC connection that
// shares one session cache.
type h3Client struct {
	url     string
	timeout time.Duration
	tls     *tls.Config
	dialer  *countingDialer
	// maxHeader bounds the header of each response (bytes).
	maxHeader int64
}

// get makes one request and returns its connection and, for a plain GET,
// the handshake time. A GET_0RTT request does not wait for the handshake,
// or it could not go out as early data.
func (h h3Client) get(ctx context.Context, method string) (*quic.Conn, time.Duration, error) {
	var mu sync.Mutex
	var conn *quic.Conn
	var handshake time.Duration
	wait := method == http.MethodGet
	tr := &http3.Transport{TLSClientConfig: h.tls, QUICConfig: &quic.Config{HandshakeIdleTimeout: h.timeout},
		MaxResponseHeaderBytes: int(h.maxHeader),
		Dial: func(ctx context.Context, addr string, tc *tls.Config, qc *quic.Config) (*quic.Conn, error) {
			start := time.Now()
			c, err := h.dialer.dialQUIC(ctx, addr, tc, qc)
			if err != nil {
				return nil, err
			}
			if wait {
				select {
				case <-c.HandshakeComplete():
				case <-ctx.Done():
				}
			}
			mu.Lock()
			defer mu.Unlock()
			conn, handshake = c, time.Since(start)
			return c, nil
		}}
	// The request's one QUIC connection holds a slot, as a TCP
	// connection does (see countingDialer), until the transport is
	// closed; the timeout starts when the slot is granted.
	if h.dialer.slots != nil {
		if err := h.dialer.slots.acquire(ctx, priorityOf(ctx)); err != nil {
			return nil, 0, err
		}
		defer h.dialer.slots.release()
	}
	defer tr.Close()
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, 0, fmt.Errorf("HTTP/3 request to %s: %w", h.url, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	<-conn.HandshakeComplete() // a response means 1-RTT keys: the handshake is done
	return conn, handshake, nil
}
