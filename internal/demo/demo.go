// Package demo is the runner of 'httpslab demo': on the embedded server it
// measures plain HTTP, HTTPS with HTTP/1.1 and HTTP/2, and HTTP/3, on fresh,
// resumed, 0-RTT and kept-alive connections with compare's engine
// (interleaved rounds in a shuffled order, medians with their intervals),
// loads a short page over HTTP/1.1 and HTTP/2 with page's engine, then
// loads the server briefly in each connection mode and audits it. Behind
// an emulated link it measures compare's default matrix and the page
// alone, whose differences in round trips are the point there.
package demo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
)

// Config sets up a demo. Zero values mean the defaults.
type Config struct {
	// Runs is the number of measured requests per variant; 0 means 7.
	Runs int
	// LoadTime is how long the server is loaded in each connection mode;
	// 0 leaves the load out. Behind a link there is no load.
	LoadTime time.Duration
	// NoAudit leaves the audit out. Behind a link there is no audit.
	NoAudit bool
	// NoPage leaves the page loads out.
	NoPage bool
	// PageRounds is the number of measured loads of the page per
	// protocol; 0 means DefaultPageRounds.
	PageRounds int
	// LinkKeys are the variants measured behind a link; nil means
	// compare.DefaultMatrix().
	LinkKeys []compare.Key
	// Seed fixes the order of the variants in each round; 0 picks one.
	Seed uint64
	// Progress, if set, is called after each measuring round.
	Progress func(round int)
}

// DefaultRuns is the number of measured requests per variant when
// Config.Runs is 0: enough for a median with its interval in a second.
const DefaultRuns = 7

// requestTimeout bounds each request of the comparison: the embedded
// server answers in milliseconds, even behind a slow link.
const requestTimeout = 10 * time.Second

// Variant is one row of the demo on loopback: a label a newcomer reads and
// the variant of compare's matrix it measures.
type Variant struct {
	Name string
	Key  compare.Key
}

// keys of the demo's variants, built like compare's matrix.
var (
	plain     = compare.Key{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}
	httpsKey  = compare.Key{Scheme: "https", Proto: transport.HTTP1, TLS: "1.3", Handshake: "full", Conn: "fresh"}
	h2Key     = with(httpsKey, func(k *compare.Key) { k.Proto = transport.HTTP2 })
	h3Key     = with(httpsKey, func(k *compare.Key) { k.Proto = transport.HTTP3 })
	resumed   = func(k *compare.Key) { k.Handshake = "resumed" }
	keptAlive = func(k *compare.Key) { k.Conn = "reuse" }
)

func with(k compare.Key, change func(*compare.Key)) compare.Key {
	change(&k)
	return k
}

// Variants are the rows on loopback, in the order shown; plain HTTP, the
// first, is the baseline of the comparison.
var Variants = []Variant{
	{"HTTP/1.1 plain", plain},
	{"HTTPS HTTP/1.1", httpsKey},
	{"HTTPS HTTP/1.1 resumed", with(httpsKey, resumed)},
	{"HTTPS HTTP/2", h2Key},
	{"HTTPS HTTP/2 resumed", with(h2Key, resumed)},
	{"HTTPS HTTP/2 kept alive", with(h2Key, keptAlive)},
	{"HTTP/3", h3Key},
	{"HTTP/3 resumed", with(h3Key, resumed)},
	{"HTTP/3 0-RTT", with(h3Key, func(k *compare.Key) { k.Handshake = "0rtt" })},
}

// Result is what a demo measured; it is also its --json result.
type Result struct {
	// Server says where the embedded server ran: on loopback, or behind
	// an emulated link and which.
	Server  string `json:"server"`
	URL     string `json:"url"`
	HTTPURL string `json:"http_url"`
	// BehindLink is true when the server ran behind an emulated link:
	// the comparison is compare's matrix and there is no load or audit.
	BehindLink bool `json:"behind_link"`
	// Comparison holds the variants' samples and their analysis.
	Comparison *compare.Result `json:"comparison"`
	// Page is the page loaded over HTTP/1.1 and HTTP/2 (PagePath), or
	// PageErr why it failed.
	Page    *page.Result `json:"page,omitempty"`
	PageErr string       `json:"page_error,omitempty"`
	// Load holds one short load run per connection mode, with LoadTime
	// and LoadConns the setup they share.
	Load      []Load        `json:"load,omitempty"`
	LoadTime  time.Duration `json:"load_time_ns,omitempty"`
	LoadConns int           `json:"load_connections,omitempty"`
	// Audit is the audit of the server, or AuditErr why it failed.
	Audit    *tlsscan.Report `json:"audit,omitempty"`
	AuditErr string          `json:"audit_error,omitempty"`
}

// Run runs the demo on srv. When ctx is cancelled, or the baseline
// fails, it returns what was measured so far with the error; it returns
// no result when nothing could be measured. Result.Failure tells a
// finished run in which a part failed.
func Run(ctx context.Context, srv *embedded.Server, cfg Config) (*Result, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = DefaultRuns
	}
	res := &Result{Server: srv.Describe(), URL: srv.HTTPSURL + "/", HTTPURL: srv.HTTPURL + "/", BehindLink: srv.Link != nil}
	cmp, err := compareVariants(ctx, srv, cfg, res.BehindLink)
	if cmp == nil {
		return nil, err
	}
	res.Comparison = cmp
	if err != nil {
		return res, err
	}
	if !cfg.NoPage && ctx.Err() == nil {
		res.Page, res.PageErr = runPage(ctx, srv, cfg)
	}
	if res.BehindLink {
		return res, ctx.Err()
	}
	if cfg.LoadTime > 0 {
		res.Load, res.LoadTime, res.LoadConns = runLoad(ctx, srv, cfg.LoadTime), cfg.LoadTime, loadConns
	}
	if !cfg.NoAudit && ctx.Err() == nil {
		var auditErr error
		if res.Audit, auditErr = runAudit(ctx, srv); auditErr != nil {
			res.AuditErr = auditErr.Error()
		}
	}
	return res, ctx.Err()
}

// compareVariants measures the demo's variants on loopback, or the link
// matrix behind a link, with compare's engine.
func compareVariants(ctx context.Context, srv *embedded.Server, cfg Config, behindLink bool) (*compare.Result, error) {
	target := compare.Target{URL: srv.HTTPSURL + "/", HTTPURL: srv.HTTPURL + "/"}
	target.Probe.TLS.Trust, target.Probe.Timeout = srv.Trust(), requestTimeout
	var keys []compare.Key
	var names []string
	for _, v := range Variants {
		keys, names = append(keys, v.Key), append(names, v.Name)
	}
	// On loopback the embedded server answers every variant: a single
	// failed request is a fault worth stopping the variant for. Behind a
	// link with loss a lost request is what the link does.
	maxFailures := 1
	if behindLink {
		keys, names, maxFailures = cfg.LinkKeys, nil, 0 // 0: compare's default
		if keys == nil {
			keys = compare.DefaultMatrix()
		}
	}
	variants, closeAll, err := target.Variants(keys)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	for i := range names {
		variants[i].Name = names[i]
	}
	return compare.Run(ctx, compare.Config{
		Variants: variants, Runs: cfg.Runs, Seed: cfg.Seed, MaxFailures: maxFailures, Progress: cfg.Progress,
	})
}

// Failure returns an error when a part of a finished demo failed: a
// variant that was dropped, the page loads, a load run or the audit.
// Behind a link a dropped variant is told by compare's own rule
// (Result.Failure of the comparison), since loss on the link can drop
// one.
func (r *Result) Failure() error {
	if r.Comparison == nil {
		return errors.New("demo: nothing was measured")
	}
	if r.BehindLink {
		if err := r.Comparison.Failure(); err != nil {
			return err
		}
		return r.pageFailure()
	}
	for _, v := range r.Comparison.Variants {
		if v.Dropped != "" {
			return fmt.Errorf("demo: %s failed: %w", v.Name, dropErr(v))
		}
	}
	if err := r.pageFailure(); err != nil {
		return err
	}
	for _, l := range r.Load {
		if l.Err != "" {
			return fmt.Errorf("demo: load %s failed: %s", l.Name, l.Err)
		}
	}
	if r.AuditErr != "" {
		return fmt.Errorf("demo: audit failed: %s", r.AuditErr)
	}
	return nil
}

// pageFailure is the failure of the page loads: the embedded server
// serves every resource of its page, behind a link too (TCP retransmits
// what the link loses).
func (r *Result) pageFailure() error {
	if r.PageErr != "" {
		return fmt.Errorf("demo: the page loads failed: %s", r.PageErr)
	}
	return nil
}

func dropErr(v compare.VariantResult) error {
	if v.Err != nil {
		return v.Err
	}
	return errors.New(v.Dropped)
}
