package compare

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// Target is the server the variants are measured against.
type Target struct {
	// URL is the https:// URL (an http:// URL is accepted when only plain
	// HTTP variants are measured).
	URL string
	// HTTPURL is the plain-HTTP URL of the same resource; empty means URL
	// with the http scheme and, for port 443, port 80.
	HTTPURL string
	// Probe is the base request setup: TLS trust and options (the
	// version is set per variant), --resolve, --connect-to, timeout.
	Probe probe.Config
}

// HTTPURLOf derives the plain-HTTP URL from an https:// URL: same host
// and path, port 80 for the default port 443. Any other port has no
// guessable plain-HTTP twin and is an error.
func HTTPURLOf(httpsURL string) (string, error) {
	u, err := url.Parse(httpsURL)
	if err != nil {
		return "", fmt.Errorf("parsing URL: %w", err)
	}
	if u.Scheme == "http" {
		return httpsURL, nil
	}
	if p := u.Port(); p != "" && p != "443" {
		return "", fmt.Errorf("cannot tell the plain-HTTP port of %s (port %s)", u.Redacted(), p)
	}
	u.Scheme = "http"
	u.Host = u.Hostname()
	if ip := net.ParseIP(u.Host); ip != nil && ip.To4() == nil {
		u.Host = "[" + u.Host + "]"
	}
	return u.String(), nil
}

// PlainURL is the URL the plain-HTTP variants measure: HTTPURL, or the
// one HTTPURLOf derives from URL.
func (t Target) PlainURL() (string, error) {
	if t.HTTPURL != "" {
		return t.HTTPURL, nil
	}
	return HTTPURLOf(t.URL)
}

// UsedHTTPURL is the plain-HTTP URL that res measured, if any: PlainURL
// when a variant of res is plain HTTP, else HTTPURL as given.
func (t Target) UsedHTTPURL(res *Result) string {
	if slices.ContainsFunc(res.Variants, func(v VariantResult) bool { return v.Key.Scheme == "http" }) {
		u, _ := t.PlainURL()
		return u
	}
	return t.HTTPURL
}

// Variants builds a probe-backed variant for each key. The returned close
// function releases their connections.
func (t Target) Variants(keys []Key) ([]Variant, func(), error) {
	var clients []*probe.Client
	closeAll := func() {
		for _, c := range clients {
			c.Close()
		}
	}
	var out []Variant
	for _, k := range keys {
		cfg, err := t.configFor(k)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		c, err := probe.New(cfg)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("setting up %s: %w", k.Name(), err)
		}
		clients = append(clients, c)
		out = append(out, Variant{Key: k, Sampler: sampler(c, k)})
	}
	return out, closeAll, nil
}

// configFor is the probe setup of one variant.
func (t Target) configFor(k Key) (probe.Config, error) {
	cfg := t.Probe
	cfg.URL = t.URL
	cfg.Protocol = k.Proto
	cfg.FollowRedirects = false
	if k.Scheme == "http" {
		u, err := t.PlainURL()
		if err != nil {
			return cfg, fmt.Errorf("%w; pass --http-url", err)
		}
		cfg.URL = u
		cfg.TLS = transport.TLS{}
		return cfg, nil
	}
	v := map[string]uint16{"1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13}[k.TLS]
	cfg.TLS.Min, cfg.TLS.Max = v, v
	return cfg, nil
}

// Mode is the connection mode of the variant: its conn and handshake
// dimensions in the one vocabulary probe and bench take (KeepAlive for a
// reused connection, else Fresh, Resumed or ZeroRTT).
func (k Key) Mode() transport.ConnMode {
	switch {
	case k.Conn == "reuse":
		return transport.KeepAlive
	case k.Handshake == "resumed":
		return transport.Resumed
	case k.Handshake == "0rtt":
		return transport.ZeroRTT
	}
	return transport.Fresh
}

// sampler measures one request of variant k with client c. Resumption,
// 0-RTT and reuse need a first connection to leave a session or an open
// connection behind, so the first call makes one untimed request. A
// request that did not do what the variant says (no resumption, early
// data refused, a new connection instead of the kept-alive one) is an
// error, never a sample: it would measure another variant.
func sampler(c *probe.Client, k Key) Sampler {
	m := k.Mode()
	primed := m == transport.Fresh
	return func(ctx context.Context) (Sample, error) {
		if !primed {
			if _, err := c.Do(ctx, m); err != nil {
				return Sample{}, err
			}
			primed = true
		}
		res, err := c.Do(ctx, m)
		if err != nil {
			return Sample{}, err
		}
		tl := res.Final()
		if tl == nil {
			return Sample{}, errors.New("probe returned no response")
		}
		if err := check(k, tl); err != nil {
			return Sample{}, err
		}
		return sampleOf(tl), nil
	}
}

// StatusError is a response that does not serve the resource: an error
// status, or a redirect to the other scheme (plain HTTP sent to HTTPS, as
// nginx's "return 301 https://$host$request_uri" does), whose time would
// be compared with that of the resource itself.
type StatusError struct {
	URL      string
	Status   int
	Location string // the other scheme's URL a redirect points to, if that is the error
}

func (e *StatusError) Error() string {
	if e.Location != "" {
		return fmt.Sprintf("status %d from %s: redirected to %s, not the resource", e.Status, e.URL, e.Location)
	}
	return fmt.Sprintf("status %d from %s", e.Status, e.URL)
}

// crossScheme returns the Location of a redirect to another scheme than
// the request's, or "".
func crossScheme(tl *probe.Timeline) string {
	if tl.Status < 300 || tl.Status > 399 || len(tl.Header["Location"]) == 0 {
		return ""
	}
	req, err := url.Parse(tl.URL)
	if err != nil {
		return ""
	}
	loc, err := req.Parse(tl.Header["Location"][0])
	if err != nil || strings.EqualFold(loc.Scheme, req.Scheme) {
		return ""
	}
	return loc.String()
}

// check refuses a request that is not what its variant claims.
func check(k Key, tl *probe.Timeline) error {
	loc, mode := crossScheme(tl), k.Mode()
	switch {
	case tl.Status >= 400:
		return &StatusError{URL: tl.URL, Status: tl.Status}
	case loc != "":
		return &StatusError{URL: tl.URL, Status: tl.Status, Location: loc}
	case mode == transport.KeepAlive && !tl.Reused:
		return errors.New("the kept-alive connection was not reused (the server closed it?)")
	case mode != transport.KeepAlive && tl.Reused:
		return errors.New("a fresh request reused a connection")
	case k.Scheme == "https" && tl.TLS == nil:
		return errors.New("no TLS on an https request")
	case mode == transport.Resumed && !tl.TLS.Resumed && k.TLS == "1.2":
		// Go's TLS client resumes TLS 1.2 from tickets alone: a server
		// with a session cache and tickets off resumes openssl s_time's
		// sessions, not these.
		return errors.New("the server did not resume the TLS 1.2 session: httpslab resumes TLS 1.2 with session tickets only, not session IDs (nginx: ssl_session_tickets on)")
	case mode == transport.Resumed && !tl.TLS.Resumed:
		return errors.New("the server did not resume the TLS session (no session tickets, or none accepted?)")
	case mode == transport.ZeroRTT && !tl.TLS.EarlyData:
		return errors.New("the server did not accept 0-RTT early data")
	case mode == transport.Fresh && tl.TLS != nil && tl.TLS.Resumed:
		return errors.New("a full-handshake request resumed a session")
	}
	return nil
}

// sampleOf turns a probe Timeline into a Sample.
func sampleOf(tl *probe.Timeline) Sample {
	s := Sample{
		Total:  tl.Total,
		Phases: make(map[string]time.Duration, len(tl.Phases)),
		RTT:    tl.RTT.Best(),
		WireBytes: tl.Bytes.HandshakeWritten + tl.Bytes.HandshakeRead +
			tl.Bytes.RequestWritten + tl.Bytes.ResponseRead,
		HandshakeBytes: tl.Bytes.HandshakeWritten + tl.Bytes.HandshakeRead,
		BodyBytes:      tl.Bytes.BodySize,
		Proto:          tl.Proto,
		Reused:         tl.Reused,
	}
	for _, p := range tl.Phases {
		s.Phases[p.Name] = p.Duration
	}
	if tl.TLS != nil {
		s.TLSVersion, s.Group = tl.TLS.Version, tl.TLS.Group
		s.Resumed, s.EarlyData = tl.TLS.Resumed, tl.TLS.EarlyData
	}
	return s
}
