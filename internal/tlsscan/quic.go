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
	u := "https://" + net.JoinHostPort(host, res.Port) + t.path
	cfg := t.config(tls.VersionTLS13)
	cfg.NextProtos = nil
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	var conn *quic.Conn
	var mu sync.Mutex
	get := func(method string) error {
		// The first connection waits for its handshake, to time it; the
		// second must not, or its request could not go as early data.
		wait := method == http.MethodGet
		tr := &http3.Transport{TLSClientConfig: cfg, QUICConfig: &quic.Config{HandshakeIdleTimeout: t.timeout},
			Dial: func(ctx context.Context, addr string, tc *tls.Config, qc *quic.Config) (*quic.Conn, error) {
				start := time.Now()
				c, err := quic.DialAddrEarly(ctx, addr, tc, qc)
				if err == nil && wait {
					select {
					case <-c.HandshakeComplete():
						res.Handshake = Duration(time.Since(start))
					case <-ctx.Done():
					}
				}
				mu.Lock()
				conn = c
				mu.Unlock()
				return c, err
			}}
		defer tr.Close()
		ctx, cancel := context.WithTimeout(ctx, t.timeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, u, nil)
		if err != nil {
			return err
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return fmt.Errorf("HTTP/3 request to %s: %w", u, err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		mu.Lock()
		defer mu.Unlock()
		<-conn.HandshakeComplete()
		return nil
	}
	if err := get(http.MethodGet); err != nil {
		res.Error = err.Error()
		return res
	}
	res.Reachable = true
	if err := get(http3.MethodGet0RTT); err != nil {
		res.Error = err.Error()
		return res
	}
	cs := conn.ConnectionState()
	res.Resumed, res.EarlyData = cs.TLS.DidResume, cs.Used0RTT
	return res
}
