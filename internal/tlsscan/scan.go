// Package tlsscan audits an HTTPS server: which protocol versions, cipher
// suites and key-exchange groups it accepts (found with hand-built
// ClientHellos that stop at the ServerHello), how its certificate chain,
// session resumption, 0-RTT, ALPN and HTTP/3 behave (found with crypto/tls
// and quic-go), and how its HTTP responses are set up (redirect to HTTPS,
// HSTS, keep-alive, compression, CSP, dotfiles). Each problem becomes a
// Finding with its evidence, its cost at the measured round-trip time and
// the nginx lines that fix it.
package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// Config says what to audit and how. The zero value of each field means
// its default.
type Config struct {
	// Host is the host name or IP address of the server (required).
	Host string
	// Port is the HTTPS port; 0 means 443.
	Port int
	// Path is the path the HTTP checks request; empty means "/".
	Path string
	// LargePath is requested to measure the first TLS record of a
	// response; it should be larger than 16 KB. Empty means Path.
	LargePath string
	// HTTPPort is the plain-HTTP port for the redirect check; 0 skips it.
	HTTPPort int
	// Trust verifies the chain: against a CA file, a pool or the system
	// roots. Its Insecure turns an untrusted chain into a finding instead
	// of an error.
	Trust transport.Trust
	// Attempts is K in "resumed N of K"; 0 means 20.
	Attempts int
	// Concurrency bounds the connections open at once, those of every
	// check; 0 means DefaultConcurrency.
	Concurrency int
	// Timeout bounds each connection; 0 means 5s.
	Timeout time.Duration
	// MaxTime bounds the whole audit; 0 means no bound but ctx's. When
	// it is reached, Run returns what was measured before, with
	// context.DeadlineExceeded.
	MaxTime time.Duration
	// MaxHeaderBytes bounds the header of each HTTP response; 0 means
	// transport.MaxHeaderBytes.
	MaxHeaderBytes int64
	// Progress, if set, is called with the name of each check as it starts.
	Progress func(check string)
	// Now is the clock for certificate expiry; nil means time.Now.
	Now func() time.Time
	// Resolver is the DNS server (host:port) asked for the name's CAA
	// records; empty means the first nameserver of /etc/resolv.conf.
	Resolver string
}

func (c Config) withDefaults() Config {
	if c.Port == 0 {
		c.Port = 443
	}
	if c.Path == "" {
		c.Path = "/"
	}
	if c.LargePath == "" {
		c.LargePath = c.Path
	}
	if c.Attempts <= 0 {
		c.Attempts = 20
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Progress == nil {
		c.Progress = func(string) {}
	}
	return c
}

// DefaultConcurrency is the connections an audit keeps open at once when
// Config.Concurrency is 0: as many as its checks opened at once when only
// the enumeration's were bounded (by 16), so that it takes no longer.
const DefaultConcurrency = 48

// Negotiated is what a default client (crypto/tls, TLS 1.2 and 1.3) got.
type Negotiated struct {
	Version string `json:"version"`
	Suite   string `json:"suite"`
	Group   string `json:"group,omitempty"`
	// ALPN is the protocol the server chose from h2 and http/1.1.
	ALPN string `json:"alpn"`
	// HandshakeRounds is the round trips of this full handshake, counted
	// on the wire (the client's waits for the server): 1 for TLS 1.3, 2
	// for TLS 1.2, one more after a HelloRetryRequest.
	HandshakeRounds int `json:"handshake_rounds"`
}

// Report is the result of an audit.
type Report struct {
	Target  string    `json:"target"`
	Address string    `json:"address"`
	Started time.Time `json:"started"`
	Elapsed Duration  `json:"elapsed_ns"`
	// RTT is the smallest TCP connect time seen: every cost in round
	// trips is turned into time with it.
	RTT Duration `json:"rtt_ns"`
	// Connections counts every connection the audit opened, TCP and QUIC.
	Connections int64        `json:"connections"`
	Negotiated  Negotiated   `json:"negotiated"`
	Enumeration *Enumeration `json:"enumeration"`
	Chain       Chain        `json:"chain"`
	Resumption  Resumption   `json:"resumption"`
	// Records is what the records of the LargePath response showed.
	Records     ServerRecords `json:"records"`
	RecordsBody int64         `json:"records_body_bytes"`
	HTTP        HTTPResult    `json:"http"`
	HTTP3       HTTP3Result   `json:"http3"`
	Redirect    *Redirect     `json:"redirect,omitempty"`
	// CAA is the name's DNS CAA record set (for an IP address, that of a
	// DNS name of its certificate), or why it was not measured.
	CAA *CAA `json:"caa,omitempty"`
	// Vulnerabilities are the active checks for known attacks.
	Vulnerabilities []VulnCheck `json:"vulnerabilities"`
	// Clients is what well-known clients would get, simulated from the
	// enumeration (see clients.json).
	Clients  []ClientResult `json:"clients"`
	Findings []Finding      `json:"findings"`
	// NotChecked lists the checks that could not run, and why.
	NotChecked []string `json:"not_checked,omitempty"`
	// Partial is true when the audit stopped during the enumeration: the
	// report holds what was found before, and no findings.
	Partial bool `json:"partial,omitempty"`
	// privateCA is true when the chain was verified against roots the
	// user gave (a private CA), not the system's.
	privateCA bool
	// retryGroup is the group of a first TLS 1.3 handshake that Go's
	// default client sent no key share for (0 for none).
	retryGroup tls.CurveID
}

// ErrUntrusted is returned when the chain does not verify and
// Config.Trust.Insecure is false.
var ErrUntrusted = errors.New("certificate not trusted")

// Run audits the server. It returns an error when the server cannot be
// audited at all, with no report when not even the first handshake
// succeeded. When the server stops answering or ctx ends during the
// enumeration, it returns the report of what was found so far, without
// findings, and the error. Checks that fail are listed in Report.NotChecked.
func Run(parent context.Context, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	ctx := parent
	if cfg.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, cfg.MaxTime)
		defer cancel()
	}
	rep, err := run(ctx, cfg)
	// A read or dial that failed at the deadline may return before ctx
	// itself says so, and so may the audit when every check ended there:
	// the clock decides.
	deadline, limited := ctx.Deadline()
	if rep != nil && err == nil && limited && !time.Now().Before(deadline) {
		err = context.DeadlineExceeded
	}
	if err != nil && parent.Err() == nil && limited && cfg.MaxTime > 0 && !time.Now().Before(deadline) {
		err = fmt.Errorf("%w (%v): %w", ErrTimeLimit, cfg.MaxTime, err)
		if rep != nil {
			rep.NotChecked = append(rep.NotChecked, fmt.Sprintf("the audit reached its time limit of %v: "+
				"what it had not measured by then is missing", cfg.MaxTime))
		}
	}
	return rep, err
}

// ErrTimeLimit is returned, wrapped, when the audit reached
// Config.MaxTime before it was done; the report returned with it holds
// what was measured before.
var ErrTimeLimit = errors.New("the audit reached its time limit")

// run is Run within ctx.
func run(ctx context.Context, cfg Config) (*Report, error) {
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	rep := &Report{Target: fmt.Sprintf("https://%s%s", addr, cfg.Path), Address: addr, Started: cfg.Now()}
	start := time.Now()
	d := newCountingDialer(cfg.Concurrency, cfg.Timeout, nil)
	roots, err := cfg.Trust.Roots()
	if err != nil {
		return nil, fmt.Errorf("auditing %s: %w", addr, err)
	}
	rep.privateCA = roots != nil
	t := &target{addr: addr, host: cfg.Host, path: cfg.Path, roots: roots, timeout: cfg.Timeout, dialer: d,
		maxHeader: transport.HeaderLimit(cfg.MaxHeaderBytes)}
	p := newProber(addr, cfg.Host, cfg.Concurrency, cfg.Timeout, d)
	// Every check starts at once, beside the first handshake, and is
	// stopped when that handshake fails: the checks that need its chain
	// (the group scan, for the certificate's curve; the resumption checks,
	// for its expiry; the staple) wait for it, the others do not.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chainKnown := make(chan struct{})
	var wg sync.WaitGroup
	var recordsErr, firstErr error
	cfg.Progress("handshake")
	wg.Go(func() {
		recordsErr, firstErr = rep.first(withPriority(ctx, priorityFirst), t, cfg, func() { close(chainKnown) })
		if firstErr != nil {
			cancel()
		}
	})
	// waitChain waits for the first handshake's chain; false when the
	// handshake failed.
	waitChain := func() bool {
		select {
		case <-chainKnown:
			return true
		case <-ctx.Done():
			return false
		}
	}
	var mu sync.Mutex
	notChecked := func(check string, err error) {
		mu.Lock()
		defer mu.Unlock()
		rep.NotChecked = append(rep.NotChecked, fmt.Sprintf("%s: %v", check, err))
	}
	// The resumption checks start as soon as the enumeration knows the
	// versions, and run beside the rest of it; they are dropped when the
	// enumeration fails.
	resCtx, resCancel := context.WithCancel(ctx)
	defer resCancel()
	var resErr error
	resumption := func(versions []uint16) {
		cfg.Progress("resumption")
		rep.Resumption, resErr = checkResumption(withPriority(resCtx, priorityResumption), resumptionTarget(t, rep.Chain.leaf, rep.retryGroup), versions, cfg.Attempts)
	}
	var enumErr error
	wg.Go(func() {
		cfg.Progress("enumeration")
		rep.Enumeration, enumErr = enumerate(ctx, p, func(versions []uint16) {
			// The group scan, which follows, needs the certificate's curve.
			if waitChain() {
				p.certGroup = rep.Chain.leafCurve()
				wg.Go(func() { resumption(versions) })
			}
		})
		if enumErr != nil {
			resCancel()
		}
	})
	var vulns *vulnScan
	wg.Go(func() { vulns = scanVulns(ctx, p) })
	wg.Go(func() { rep.httpChecks(ctx, t, cfg, notChecked) })
	wg.Go(func() {
		if waitChain() {
			t.recheckStaple(ctx, &rep.Chain)
		}
	})
	wg.Go(func() {
		// For an IP address, the names to look up are the certificate's.
		var leaf *x509.Certificate
		if isIPAddress(cfg.Host) {
			if !waitChain() {
				return
			}
			leaf = rep.Chain.leaf
		}
		caa, err := checkCAA(ctx, cfg.Host, leaf, cfg.Resolver)
		if err != nil {
			caa = &CAA{NotMeasured: err.Error()}
		}
		rep.CAA = caa
	})
	wg.Go(func() {
		if cfg.HTTPPort != 0 {
			r := t.checkRedirect(ctx, fmt.Sprintf("http://%s%s", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.HTTPPort)), cfg.Path))
			rep.Redirect = &r
		}
	})
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if recordsErr != nil {
		rep.NotChecked = append([]string{fmt.Sprintf("record size: %v", recordsErr)}, rep.NotChecked...)
	}
	defer func() {
		rep.RTT = Duration(p.RTT())
		rep.Connections = d.n.Load()
		rep.Elapsed = Duration(time.Since(start))
	}()
	for _, n := range p.notesTaken() {
		rep.NotChecked = append(rep.NotChecked, "enumeration: "+n)
	}
	if enumErr != nil {
		rep.Resumption = Resumption{}
		rep.Partial = true
		rep.NotChecked = append(rep.NotChecked, fmt.Sprintf("enumeration stopped (%v): versions, suites and groups are those found before; "+
			"resumption and findings not checked", enumErr))
		return rep, fmt.Errorf("enumerating %s: %w", addr, enumErr)
	}
	rep.addVulns(vulns)
	if resErr != nil {
		notChecked("resumption", resErr)
	}
	rep.RTT = Duration(p.RTT())
	rep.Clients = simulateClients(rep)
	rep.Findings = findings(rep)
	return rep, ctx.Err()
}

// first makes the first full handshake as a default client, checks the
// chain (then calls chainKnown, unless it is untrusted and that is an
// error) and fetches the large path, reading its records; recordsErr says
// why they could not be read. The ALPN check runs beside it and fills
// Negotiated.ALPN, so Negotiated is set field by field here.
func (rep *Report) first(ctx context.Context, t *target, cfg Config, chainKnown func()) (recordsErr, err error) {
	s, err := t.dial(ctx, t.config(VersionTLS13), withRecording)
	if err != nil {
		return nil, err
	}
	cs := s.conn.ConnectionState()
	n := &rep.Negotiated
	n.Version, n.Suite, n.HandshakeRounds = tls.VersionName(cs.Version), SuiteName(cs.CipherSuite), s.rounds
	if cs.CurveID != 0 {
		n.Group = transport.GroupName(cs.CurveID)
	}
	if cs.Version == tls.VersionTLS13 && cs.CurveID != tls.X25519 && cs.CurveID != tls.X25519MLKEM768 {
		// Go's default client sent no key share for this group.
		rep.retryGroup = cs.CurveID
	}
	rep.Chain = checkChain(cs, cfg.Host, t.roots, cfg.Now())
	if !rep.Chain.Trusted && !cfg.Trust.Insecure {
		s.conn.Close()
		// As crypto/tls reports it, with the certificates sent, so that the
		// hint can name an incomplete chain.
		return nil, fmt.Errorf("auditing %s: %w: %w", t.addr, ErrUntrusted,
			&tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: rep.Chain.verifyErr})
	}
	chainKnown()
	_, body, getErr := t.get(ctx, s, cfg.LargePath)
	rep.RecordsBody = int64(len(body))
	rep.Records, err = readServerRecords(s.rec.bytesRead(), cs, s.keys)
	return errors.Join(getErr, err), nil
}

// resumptionTarget returns t for the resumption checks. With a leaf that
// has expired, its client's clock is moved back within the leaf's
// validity, so that a session on an expired certificate is offered again
// (see target.shift): an hour before its end, or half way through a
// shorter life. With group set (the server asked the first handshake for
// a group Go sends no key share for), that group alone is offered, so
// that the full and resumed handshakes are timed without the retry (the
// hello-retry finding prices it) and take the round trips the audit waits
// for only once.
func resumptionTarget(t *target, leaf *x509.Certificate, group tls.CurveID) *target {
	r := *t
	r.group = group
	if leaf != nil && time.Now().After(leaf.NotAfter) {
		before := min(time.Hour, leaf.NotAfter.Sub(leaf.NotBefore)/2)
		r.shift = time.Until(leaf.NotAfter.Add(-before))
	}
	return &r
}

// httpChecks runs the HTTP-level checks on the HTTPS port. ALPN is
// checked whatever becomes of the HTTP/1.1 request: a server that speaks
// only HTTP/2, or asks for a client certificate, still offers h2. The
// keep-alive and dotfile checks start beside the first request, on
// their own connections, and count only when it was answered.
func (rep *Report) httpChecks(ctx context.Context, t *target, cfg Config, notChecked func(string, error)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		cfg := t.config(VersionTLS13)
		cfg.NextProtos = []string{"h2", "http/1.1"}
		s, err := t.dial(ctx, cfg, noRecording)
		if err != nil {
			notChecked("alpn", err)
			return
		}
		rep.Negotiated.ALPN = s.conn.ConnectionState().NegotiatedProtocol
		s.conn.Close()
	})
	base := "https://" + t.addr
	var more sync.WaitGroup
	var keepAlive, dotfiles HTTPResult
	var keepAliveErr, dotfilesErr error
	more.Go(func() { keepAliveErr = t.checkKeepAlive(ctx, base, &keepAlive) })
	more.Go(func() { dotfilesErr = t.checkDotfiles(ctx, base, &dotfiles) })
	s, err := t.dial(ctx, t.config(VersionTLS13), noRecording)
	var resp *http.Response
	var body []byte
	if err == nil {
		resp, body, err = t.get(ctx, s, cfg.Path)
	}
	more.Wait()
	if err != nil {
		notChecked("http", err)
		return
	}
	rep.HTTP.readResponse(resp, body)
	if keepAliveErr != nil {
		notChecked("keep-alive", keepAliveErr)
	} else {
		rep.HTTP.KeepAlive, rep.HTTP.KeepAliveRequests = keepAlive.KeepAlive, keepAlive.KeepAliveRequests
	}
	if dotfilesErr != nil {
		notChecked("dotfiles", dotfilesErr)
	} else {
		rep.HTTP.Dotfiles = dotfiles.Dotfiles
	}
	wg.Go(func() { rep.HTTP3 = t.checkHTTP3(ctx, rep.HTTP.AltSvc) })
}
