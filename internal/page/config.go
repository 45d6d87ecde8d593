package page

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// Protocol is how a load fetches the page.
type Protocol string

// Protocols a load can use, as --protocols spells them.
const (
	HTTP   Protocol = "http" // plain HTTP/1.1, the http:// form of the URL
	HTTP1  Protocol = "h1"   // HTTP/1.1 over TLS
	HTTP2  Protocol = "h2"   // HTTP/2 over TLS
	HTTP3  Protocol = "h3"   // HTTP/3 over QUIC
	HTTP2C Protocol = "h2c"  // HTTP/2 without TLS (prior knowledge), for http:// URLs with --http2
)

// ParseProtocol reads a protocol name: http, h1, h2, h3 (also http1.1,
// http2, http3).
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "http":
		return HTTP, nil
	case "h1", "http1.1":
		return HTTP1, nil
	case "h2", "http2":
		return HTTP2, nil
	case "h3", "http3":
		return HTTP3, nil
	case "h2c":
		return HTTP2C, nil
	}
	return "", fmt.Errorf("unknown protocol %q (want http, h1, h2 or h3)", s)
}

// ErrNeedsHTTPS is wrapped by Choose's error for a TLS protocol asked of
// an http:// page.
var ErrNeedsHTTPS = errors.New("needs the page's https:// URL")

// Choose returns the protocols of a run: those of list (--protocols,
// comma-separated, each once, in the order given), or else the one that
// forced names: ProtoAuto is h2 over https://, as a browser's ALPN would
// choose, and HTTP/1.1 over http://, where HTTP/2 is h2c. plain says the
// page's URL is http://.
func Choose(list string, forced transport.Protocol, plain bool) ([]Protocol, error) {
	if list == "" {
		p := map[transport.Protocol]Protocol{transport.ProtoAuto: HTTP2, transport.HTTP1: HTTP1, transport.HTTP2: HTTP2, transport.HTTP3: HTTP3}[forced]
		switch {
		case plain && forced == transport.HTTP2:
			p = HTTP2C
		case plain && p != HTTP3:
			p = HTTP
		}
		return []Protocol{p}, nil
	}
	var out []Protocol
	for _, s := range strings.Split(list, ",") {
		p, err := ParseProtocol(strings.TrimSpace(strings.ToLower(s)))
		if err != nil {
			return nil, err
		}
		if plain && p != HTTP {
			return nil, fmt.Errorf("%s %w", p, ErrNeedsHTTPS)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// secure reports whether the protocol runs over TLS.
func (p Protocol) secure() bool { return p == HTTP1 || p == HTTP2 || p == HTTP3 }

// major is the HTTP major version every response of a load over p must have.
func (p Protocol) major() int {
	switch p {
	case HTTP2, HTTP2C:
		return 2
	case HTTP3:
		return 3
	}
	return 1
}

// alpn is the one ALPN protocol a TLS connection of p offers, so that a
// server that cannot speak it shows as a mismatch, never as a silent
// fallback.
func (p Protocol) alpn() string {
	switch p {
	case HTTP2:
		return "h2"
	case HTTP3:
		return "h3"
	}
	return "http/1.1"
}

// Defaults, a browser's (Chromium's) values where a browser has one.
const (
	DefaultMaxConnsPerOrigin = 6 // HTTP/1.1 connections per origin
	// DefaultMaxStreams bounds the requests in flight on an HTTP/2 or
	// HTTP/3 connection, below the server's own limit: Chromium takes
	// the server's SETTINGS_MAX_CONCURRENT_STREAMS up to 256 (Go's
	// server grants 250, nginx 128), 100 only until the settings come.
	DefaultMaxStreams       = 256
	DefaultMaxResources     = 2000 // resources of one load, the document included
	DefaultMaxCSSDepth      = 8    // nesting of stylesheets through @import
	DefaultMaxParseBytes    = 16 << 20
	DefaultMaxResourceBytes = 64 << 20
	DefaultRequestTimeout   = 30 * time.Second
	DefaultLoadTimeout      = 2 * time.Minute
)

// Config is one page load. The zero value of each limit means its default.
type Config struct {
	// URL is the page, http:// or https:// as Protocol needs.
	URL      string
	Protocol Protocol
	// Engine loads the page: httpslab's own (the zero value) or a
	// headless Chromium started for the load, from Browser (empty: the
	// chromium on PATH).
	Engine  Engine
	Browser string

	// TLS is the client's TLS setup (trust, versions, suites); a load
	// makes its tls.Config once and gives each connection a clone, with
	// the protocol's ALPN and Sessions set.
	TLS transport.TLS
	// Sessions, when set, lets connections resume TLS sessions from
	// earlier loads (--warm); nil makes every handshake a full one.
	Sessions tls.ClientSessionCache
	// Dialer opens the connections (--resolve, --connect-to, -4/-6).
	Dialer *transport.Dialer
	// Header adds request headers or replaces the browser defaults.
	Header http.Header

	// ResponseCost, when above zero, models a browser's own processing of
	// each response (--response-cost): one thread takes in the responses'
	// headers and bytes in the order they arrive, ResponseCost for each
	// response's headers, and a request completes, freeing its connection
	// or stream, once that thread has done its headers and its bytes. It
	// stands for the CPU a browser spends per response, which on a
	// machine of few cores paces a page of many small resources;
	// scripts/page-vs-chromium.sh measures it from Chromium on a page of
	// tiny images. Zero: the network alone.
	ResponseCost time.Duration
	// ResponseCostPerMB, when above zero, is the modelled browser's work
	// per MB (10^6 bytes) of body (--response-cost-per-mb), done on the
	// same thread as the bytes arrive: reading and decrypting them in its
	// network service, copying them to the renderer, decoding or
	// compiling them, which paces a page of many bytes once the network
	// delivers them faster. A small response whose bytes came behind a
	// large one's waits for them. scripts/page-vs-chromium.sh measures it
	// from Chromium on a page of large images. Zero: the cost is per
	// response alone.
	ResponseCostPerMB time.Duration
	// ResponseDelay, when above zero, is the least time from a
	// response's last byte to the end of its processing in the modelled
	// browser (--response-delay): the hand-offs between a browser's
	// processes, each waiting for a core, which over HTTP/1.1 lie on each
	// connection's path. Responses wait for it side by side, beside the
	// thread's work.
	ResponseDelay time.Duration
	// TightLimit, when above zero, models a browser's tight mode at the
	// start of a load (--tight-limit): at most this many requests below
	// a browser's High priority (images, async and deferred scripts) are
	// in flight, the others held, until TightUntil after the document
	// completed; the document, stylesheets, blocking scripts and fonts
	// are never held. Chromium's limit is DefaultBrowserTightLimit. Zero:
	// no tight mode, every request goes as soon as it is found.
	TightLimit int
	// TightUntil is how long after the document completed the tight
	// mode lasts (--tight-until): in Chromium until its parser inserts
	// the page's <body> and its network service has taken the requests
	// released then. Zero ends it with the document.
	TightUntil time.Duration
	// TightBurstCost, when above zero, delays the tight mode's end by
	// this much per request it holds at TightUntil (--tight-burst-cost):
	// a browser's network service takes the requests released in one
	// burst one at a time, and they reach the wire once it has taken
	// them, so a page that held 358 requests waits longer than one that
	// held 22.
	TightBurstCost time.Duration

	MaxConnsPerOrigin int
	MaxStreams        int
	MaxResources      int
	MaxCSSDepth       int
	MaxParseBytes     int64 // of a document or stylesheet read for discovery
	MaxResourceBytes  int64 // of one response body
	MaxHeaderBytes    int64 // of one response header; 0: transport.MaxHeaderBytes
	RequestTimeout    time.Duration
	LoadTimeout       time.Duration

	tlsConf *tls.Config // TLS's, made once per load by Run
	// origins, when set, keeps the origins an isolated browser's loads
	// relay for every load of a run over one protocol; nil finds them
	// for each load.
	origins *originCache
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxConnsPerOrigin, DefaultMaxConnsPerOrigin)
	def(&c.MaxStreams, DefaultMaxStreams)
	def(&c.MaxResources, DefaultMaxResources)
	def(&c.MaxCSSDepth, DefaultMaxCSSDepth)
	if c.MaxParseBytes <= 0 {
		c.MaxParseBytes = DefaultMaxParseBytes
	}
	if c.MaxResourceBytes <= 0 {
		c.MaxResourceBytes = DefaultMaxResourceBytes
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.LoadTimeout <= 0 {
		c.LoadTimeout = DefaultLoadTimeout
	}
	if c.Dialer == nil {
		c.Dialer = &transport.Dialer{}
	}
	return c
}

// check validates the URL against the protocol.
func (c Config) check() (*url.URL, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, fmt.Errorf("page: parsing URL: %w", err)
	}
	if err := transport.CheckURL(u); err != nil {
		return nil, fmt.Errorf("page: URL %q: %w", c.URL, err)
	}
	switch {
	case c.Protocol.secure() && u.Scheme != "https":
		return nil, fmt.Errorf("page: %s needs an https:// URL, not %s", c.Protocol, u.Redacted())
	case !c.Protocol.secure() && u.Scheme != "http":
		return nil, fmt.Errorf("page: %s needs an http:// URL, not %s", c.Protocol, u.Redacted())
	case c.Protocol == "":
		return nil, errors.New("page: no protocol")
	}
	return u, nil
}
