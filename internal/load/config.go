// Package load is httpslab's load engine: a pacer decides when requests
// start (closed model: as fast as the connections allow; open model: a fixed
// rate, with latency measured from the intended send time), workers do the
// requests over HTTP/1.1 (a minimal hand-written client), HTTP/2 or HTTP/3,
// with keep-alive, a new connection per request or resumed sessions, and a
// single aggregator goroutine keeps the statistics in HDR histograms, so
// memory does not grow with the number of requests.
package load

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// ParseConnMode reads a mode as the --conn flag spells it (keepalive,
// new, resume, or another name transport.ParseConnMode knows for them);
// 0-RTT is refused: a run sends no early data.
func ParseConnMode(s string) (transport.ConnMode, error) {
	m, err := transport.ParseConnMode(s)
	if err != nil || (m != transport.KeepAlive && m != transport.Fresh && m != transport.Resumed) {
		return 0, fmt.Errorf("unknown connection mode %q (want keepalive, new or resume)", s)
	}
	return m, nil
}

// ProtocolName names the protocol of a run as the report shows it: HTTP/2
// on an http:// URL is h2c, cleartext with prior knowledge (the client
// sends the HTTP/2 preface at once, without an Upgrade), as h2load does.
func (c Config) ProtocolName() string {
	if c.Protocol == transport.HTTP2 && c.cleartext() {
		return "HTTP/2 (h2c: cleartext, prior knowledge)"
	}
	return c.Protocol.String()
}

// cleartext reports whether the run's targets are http:// URLs.
func (c Config) cleartext() bool {
	u, err := url.Parse(c.Targets[0].URL)
	return err == nil && u.Scheme == "http"
}

// Target is one request that the run sends; a run rotates through its
// targets in order.
type Target struct {
	Method string      // empty means GET (POST when Body is set)
	URL    string      // absolute http:// or https:// URL
	Header http.Header // extra request headers
	Body   []byte      // request body, sent with Content-Length
}

// Config describes a load run. The zero value of each field means its
// default; Targets must hold at least one URL, and all targets must share
// scheme, host and port (they share the connections).
type Config struct {
	Targets []Target
	// Conns is the number of connections (-c); 0 means 1.
	Conns int
	// Streams is the number of concurrent streams per connection on
	// HTTP/2 and HTTP/3 (-m); 0 means 1.
	Streams int
	// Pipeline is the number of HTTP/1.1 requests written before their
	// responses are read (--pipeline); 0 means 1 (no pipelining).
	Pipeline int
	// Rate switches to the open model: requests per second started on
	// schedule whatever the responses do; 0 means the closed model.
	Rate float64
	// Requests is the exact number of requests to complete (-n); 0 means
	// run for Duration.
	Requests int64
	// Duration bounds the run when Requests is 0; 0 means 10 seconds.
	Duration time.Duration
	// Timeout bounds each request, its connection setup included; 0
	// means 30 seconds.
	Timeout time.Duration
	// Mode is how requests map to connections: transport.KeepAlive (the
	// zero value, the default) reuses each connection for many requests;
	// transport.Fresh opens a new TCP and TLS connection per request with a
	// full handshake (no session cache, no tickets, no session IDs);
	// transport.Resumed opens a new connection per request resuming the
	// TLS session of an earlier one (a shared client session cache). A run
	// sends no 0-RTT.
	Mode transport.ConnMode
	// RequestsPerConn closes a connection after this many requests; 0
	// means no limit in keep-alive mode and 1 in the new and resume modes.
	RequestsPerConn int
	// Protocol is the HTTP version: HTTP/1.1 over TLS or plain TCP, HTTP/2
	// over TLS (ALPN h2) or h2c on an http:// URL, HTTP/3 over QUIC. Zero
	// (transport.ProtoAuto) means HTTP/1.1: a run does not negotiate.
	Protocol transport.Protocol
	// TLS is the client TLS setup (trust, versions, suites, groups); the
	// zero value verifies against the system roots with crypto/tls's
	// defaults. A run builds its tls.Config from it once.
	TLS transport.TLS
	// Routes route the connections as curl's --resolve, --connect-to, -4
	// and -6 do: a connection for the URL's host and port goes to the
	// address they give, while the Host header (:authority), SNI and the
	// certificate check keep the URL's host. The route is worked out once
	// per run, with at most one DNS lookup; the zero value means the URL's
	// host, over IPv4 or IPv6.
	Routes transport.Routes
	// MaxHeaderBytes bounds each response's header, on every protocol:
	// a response over it fails its request with a HeaderTooLargeError
	// (see there for what counts); 0 means transport.MaxHeaderBytes.
	MaxHeaderBytes int64
	// FirstVisit keeps the configured key-exchange groups on every
	// handshake, as a browser's first visit offers them, instead of
	// offering the server's group alone once a handshake showed it (see
	// KeyShareUse).
	FirstVisit bool
	// ServerPIDs are local server processes whose CPU time is measured.
	ServerPIDs []int
	// Progress, when set, is called about once a second from the
	// aggregator with the counts so far.
	Progress func(Progress)
	// Worker is the run's place among several workers that share it; its
	// counts (Conns, Requests, Rate) are then totals, of which Run takes
	// the worker's share. The zero value is a run on its own.
	Worker Worker
	// StartAt, when set, is the wall-clock time the run starts at, once
	// set up; a run later than StartGrace (0: DefaultStartGrace) past it
	// fails with a LateError.
	StartAt    time.Time
	StartGrace time.Duration
	// RequestLog, when set, is a file the run writes a line per request
	// to: its start, latency and status (see requestlog.go).
	RequestLog string
	// IntervalCountsOnly keeps only each second's counts in
	// Result.Intervals, not its latency histograms, whose encodings
	// (half a millisecond of CPU or so each, two to four a second) only
	// bench's JSON, its HTML report and merge read: bench sets it for its
	// text and CSV reports. The intervals' Latency is then empty.
	IntervalCountsOnly bool

	// askedConns is Conns as given, when -n lowered it: the report says
	// so.
	askedConns int
	// libraryH2 runs HTTP/2 in the closed model on x/net's client, as the
	// open model does, to compare the two (BenchmarkHTTP2Client).
	libraryH2 bool
}

// AskedConns is Conns as given when -n lowered it (a run of -n 3 -c 100
// runs on 3 connections), 0 otherwise: the report says so.
func (c Config) AskedConns() int { return c.askedConns }

// Progress is a live snapshot of a run.
type Progress struct {
	Elapsed    time.Duration
	Requests   int64
	Errors     int64
	Handshakes int64
}

// Defaults applied by withDefaults.
const (
	DefaultDuration = 10 * time.Second
	DefaultTimeout  = 30 * time.Second
)

func (c Config) withDefaults() Config {
	c.Conns = max(c.Conns, 1)
	if c.Requests > 0 && int64(c.Conns) > c.Requests {
		// A connection without a request of its own would only be
		// opened and closed: -n 3 -c 100 runs on 3 connections, and the
		// report says so (h2load and ab refuse it instead).
		c.askedConns, c.Conns = c.Conns, int(c.Requests)
	}
	c.Streams = max(c.Streams, 1)
	c.Pipeline = max(c.Pipeline, 1)
	if c.Requests == 0 && c.Duration == 0 {
		c.Duration = DefaultDuration
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = transport.MaxHeaderBytes
	}
	if c.Protocol == transport.ProtoAuto {
		c.Protocol = transport.HTTP1
	}
	if c.RequestsPerConn == 0 && c.Mode != transport.KeepAlive {
		c.RequestsPerConn = 1
	}
	return c
}

// checkTargets checks the target URLs and requests, puts their hosts in
// ASCII form in a copy of c.Targets, and returns the first URL.
func (c *Config) checkTargets() (*url.URL, error) {
	var first *url.URL
	c.Targets = slices.Clone(c.Targets)
	for i, t := range c.Targets {
		u, err := url.Parse(t.URL)
		if err != nil {
			return nil, fmt.Errorf("parsing target URL: %w", err)
		}
		if err := checkRequest(t); err != nil {
			return nil, err
		}
		host := u.Host
		if err := checkURL(t.URL, u); err != nil {
			return nil, err
		}
		if u.Host != host {
			c.Targets[i].URL = u.String()
		}
		if first == nil {
			first = u
		} else if u.Scheme != first.Scheme || u.Host != first.Host {
			return nil, fmt.Errorf("target URLs %q and %q: all targets must share scheme, host and port", first, u)
		}
	}
	return first, nil
}

// validate checks the fields that have no sensible default. It puts
// internationalized host names in the target URLs in their ASCII form,
// in a copy of c.Targets: the caller's slice is left as it was.
func (c *Config) validate() error {
	if len(c.Targets) == 0 {
		return errors.New("no target URL")
	}
	if c.Worker.Count < 0 || c.Worker.Index < 0 || c.Worker.Index >= max(c.Worker.Count, 1) || c.StartGrace < 0 {
		return errors.New("worker index out of range, or a negative start grace")
	}
	if c.Conns < 0 || c.Streams < 0 || c.Pipeline < 0 || c.Requests < 0 || c.Rate < 0 || c.RequestsPerConn < 0 || c.MaxHeaderBytes < 0 {
		return errors.New("negative count, rate or size")
	}
	if err := CheckLimits(*c); err != nil {
		return err
	}
	if c.Pipeline > 1 && c.Protocol != transport.HTTP1 {
		return errors.New("pipelining is an HTTP/1.1 feature; use streams (-m) on HTTP/2 and HTTP/3")
	}
	if c.Streams > 1 && c.Protocol == transport.HTTP1 {
		return errors.New("streams (-m) need HTTP/2 or HTTP/3; use --pipeline on HTTP/1.1")
	}
	first, err := c.checkTargets()
	if err != nil {
		return err
	}
	if first.Scheme == "http" && c.Protocol == transport.HTTP3 {
		return fmt.Errorf("%s needs an https:// URL", c.Protocol)
	}
	if first.Scheme == "http" && c.Mode == transport.Resumed {
		return errors.New("connection mode resume resumes TLS sessions and needs an https:// URL")
	}
	if first.Scheme == "https" {
		if err := transport.CheckProtocolVersion(c.Protocol, c.TLS.Max); err != nil {
			return err
		}
	}
	if c.Rate > MaxRate {
		return fmt.Errorf("rate %g/s: want at most %g/s, one request a nanosecond (the resolution of the schedule)", c.Rate, float64(MaxRate))
	}
	if c.Mode != transport.KeepAlive && c.Mode != transport.Fresh && c.Mode != transport.Resumed {
		return fmt.Errorf("connection mode %v: a run knows keepalive, new and resume", c.Mode)
	}
	if v := c.Routes.IPVersion; v != 0 && v != 4 && v != 6 {
		return fmt.Errorf("IP version %d: want 4, 6 or 0 for either", v)
	}
	return nil
}
