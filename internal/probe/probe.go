// Package probe measures single HTTP requests: each request becomes a
// Timeline with its phases (DNS, connect with every dial attempt, TLS or
// QUIC handshake, send, wait, download) from monotonic per-event
// timestamps, the TLS facts of the handshake, the bytes on the wire split
// at the end of the handshake, and the round-trip time. A Client repeats
// requests to one URL on fresh, resumed (TLS session tickets), 0-RTT
// (HTTP/3) or reused connections; with FollowRedirects each hop gets its
// own Timeline.
//
// HTTP/1.1 and HTTP/2 run over net/http with the dial and the TLS
// handshake done by package transport, so their time and bytes are
// measured on the connection itself; HTTP/3 runs over quic-go's http3
// with a counted UDP socket.
package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http/httpguts"
)

// DefaultMaxRedirects is the redirect limit when Config.MaxRedirects is 0 (curl's).
const DefaultMaxRedirects = 50

// NoRedirects as Config.MaxRedirects follows no redirect at all: the
// first 3xx with a Location ends the probe with ErrRedirectLimit, as
// curl -L --max-redirs 0 does.
const NoRedirects = -1

// ErrRedirectLimit is returned, wrapped, when a probe with
// FollowRedirects reaches its redirect limit.
var ErrRedirectLimit = errors.New("redirect limit reached")

// ErrHTTPStatus is returned, wrapped, when a probe with FailOnHTTPError
// got a final response of 400 or more.
var ErrHTTPStatus = errors.New("the server answered with an error status")

// Config is what to probe and how. The zero value (with a URL) sends a GET
// with automatic protocol choice and verifies the server's certificate.
type Config struct {
	URL    string
	Method string      // empty: GET, or POST when Body is set (as curl -d)
	Header http.Header // extra request headers; they replace the defaults of the same name, an empty list removes one
	Body   []byte      // request body; without a Content-Type header it is sent as a form, as curl -d

	Protocol transport.Protocol // transport.ProtoAuto (ALPN: h2, then http/1.1), HTTP1, HTTP2 (prior knowledge on http://, as curl's --http2-prior-knowledge) or HTTP3
	TLS      transport.TLS

	Routes transport.Routes // --resolve, --connect-to, -4 and -6, parsed

	FollowRedirects bool // -L: follow 3xx responses, each hop timed on its own
	MaxRedirects    int  // 0: DefaultMaxRedirects; NoRedirects (or below): none

	// FailOnHTTPError (curl's -f) makes a final response of 400 or more
	// a failure, wrapping ErrHTTPStatus.
	FailOnHTTPError bool

	Timeout time.Duration // --max-time: bound on one Do, all hops; 0: none

	// MaxHeaderBytes bounds the header of each response, in every
	// protocol; 0 means transport.MaxHeaderBytes. A larger header fails
	// the request with a transport.HeaderLimitError.
	MaxHeaderBytes int64
}

// Result is one probe: one Timeline per redirect hop, the final response last.
type Result struct {
	Mode transport.ConnMode `json:"mode"`
	Hops []Timeline         `json:"hops"`
	// Error is why the probe failed, empty when it did not: a failed
	// hop's error, or a redirect that was not followed (the limit, a
	// scheme other than http or https) after a hop that succeeded.
	Error string `json:"error,omitempty"`
	// Err is the same failure as an error value, nil when it did not fail.
	Err error `json:"-"`
}

// fail records err as the Result's failure and returns the Result and err.
func (r *Result) fail(err error) (*Result, error) {
	if err != nil {
		r.Err, r.Error = err, err.Error()
	}
	return r, err
}

// Final returns the last hop, or nil when there is none.
func (r *Result) Final() *Timeline {
	if r == nil || len(r.Hops) == 0 {
		return nil
	}
	return &r.Hops[len(r.Hops)-1]
}

// Run probes cfg.URL once on a fresh connection.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(ctx, transport.Fresh)
}

// validate checks cfg and returns the parsed URL.
func (cfg Config) validate() (*url.URL, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("probe: parsing URL: %w", err)
	}
	if err := transport.CheckURL(u); err != nil {
		return nil, fmt.Errorf("probe: URL %q: %w", cfg.URL, err)
	}
	if err := transport.CheckMethod(cfg.Method); err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	if err := checkHeader(cfg.Header); err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	switch cfg.Protocol {
	case transport.ProtoAuto, transport.HTTP1:
	case transport.HTTP2:
		if err := transport.CheckProtocolVersion(transport.HTTP2, cfg.TLS.Max); err != nil && u.Scheme == "https" {
			return nil, fmt.Errorf("probe: %w", err)
		}
	case transport.HTTP3:
		if u.Scheme != "https" {
			return nil, errors.New("probe: HTTP/3 needs an https:// URL")
		}
		if err := transport.CheckProtocolVersion(transport.HTTP3, cfg.TLS.Max); err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
	default:
		return nil, fmt.Errorf("probe: unknown protocol %v (want http1.1, http2 or http3)", cfg.Protocol)
	}
	if v := cfg.Routes.IPVersion; v != 0 && v != 4 && v != 6 {
		return nil, fmt.Errorf("probe: IP version %d (want 4 or 6)", v)
	}
	return u, nil
}

// checkHeader refuses a header that would not reach the server as the
// fields given, before anything is dialed: a CR or LF in a value would
// end the field early and smuggle another one in (net/http refused it only
// when the request was written, after the connection and its handshake).
func checkHeader(h http.Header) error {
	for name, values := range h {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("header name %q: want a token, with no spaces, colons or control characters", name)
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("header %s value %q: control characters (CR, LF) are not allowed", name, v)
			}
		}
	}
	return nil
}
