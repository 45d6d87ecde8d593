package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/stats"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/cobra"
)

type demoFlags struct {
	runs      int
	json      bool
	benchTime time.Duration
	noAudit   bool
	link      linkFlags
}

func newDemoCmd(e *env) *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Show what HTTPS costs and what TLS 1.3, resumption, HTTP/2 and HTTP/3 save, with no setup",
		Long: `demo starts the embedded server in this process and probes it over plain HTTP,
HTTPS with HTTP/1.1, HTTP/2 and HTTP/3, on fresh connections, resumed TLS
sessions, 0-RTT (HTTP/3) and a kept-alive connection. The variants run in
interleaved rounds, and a table shows the medians side by side:

  connect    TCP connect (QUIC has none: its handshake is under TLS)
  TLS        the TLS handshake (for HTTP/3 the whole QUIC handshake)
  wait       last request byte written to the first response byte
  total      the whole request
  hs bytes   bytes on the wire up to the end of the handshake, both ways

On loopback the round-trip time is tens of microseconds, so the handshakes'
CPU cost dominates; over a real network each round trip counts (--rtt).

Then it loads the server for --bench-time in each connection mode
(keep-alive, a full handshake per request, a resumed handshake per request),
as 'httpslab bench' does, and audits it as 'httpslab audit' does.

With --rtt, --profile or another link flag, the embedded server runs behind
an emulated link and demo shows the comparison matrix of 'httpslab compare'
instead: each variant against plain HTTP, in milliseconds and round trips,
with confidence intervals, significance and a summary.

` + linkHelp(),
		Example: `  httpslab demo
  httpslab demo --runs 20
  httpslab demo --rtt 50ms
  httpslab demo --profile 3g
  httpslab demo --json > demo.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return e.runDemo(f) },
	}
	cmd.Flags().IntVar(&f.runs, "runs", 7, "measured requests per variant")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the result as JSON")
	cmd.Flags().DurationVar(&f.benchTime, "bench-time", time.Second, "load the server this long per connection mode (0: no load)")
	cmd.Flags().BoolVar(&f.noAudit, "no-audit", false, "leave out the audit")
	f.link.add(cmd.Flags())
	return cmd
}

// demoVariant is one row of the demo: a protocol and a connection mode.
type demoVariant struct {
	Name     string
	HTTPS    bool
	Protocol string
	Mode     probe.Mode
}

// demoVariants are the rows, in the order shown.
var demoVariants = []demoVariant{
	{"HTTP/1.1 plain", false, probe.ProtoHTTP11, probe.Fresh},
	{"HTTPS HTTP/1.1", true, probe.ProtoHTTP11, probe.Fresh},
	{"HTTPS HTTP/1.1 resumed", true, probe.ProtoHTTP11, probe.Resume},
	{"HTTPS HTTP/2", true, probe.ProtoHTTP2, probe.Fresh},
	{"HTTPS HTTP/2 resumed", true, probe.ProtoHTTP2, probe.Resume},
	{"HTTPS HTTP/2 kept alive", true, probe.ProtoHTTP2, probe.Reuse},
	{"HTTP/3", true, probe.ProtoHTTP3, probe.Fresh},
	{"HTTP/3 resumed", true, probe.ProtoHTTP3, probe.Resume},
	{"HTTP/3 0-RTT", true, probe.ProtoHTTP3, probe.ZeroRTT},
}

// demoRow is the measured outcome of one variant.
type demoRow struct {
	Variant string           `json:"variant"`
	Runs    []probe.Timeline `json:"runs"`
	Resumed int              `json:"resumed"` // runs whose handshake resumed a session
	Early   int              `json:"early_data"`
	Err     string           `json:"error,omitempty"`
	client  *probe.Client
	variant demoVariant
}

func (e *env) runDemo(f demoFlags) error {
	if f.runs < 1 || f.runs > 1000 {
		return usagef("--runs %d: want 1 to 1000", f.runs)
	}
	if f.benchTime < 0 || f.benchTime > time.Minute {
		return usagef("--bench-time %v: want 0 to 1m", f.benchTime)
	}
	if f.link.set() {
		// Behind a link demo runs the compare matrix only: a load time
		// given with a link flag would be ignored in silence.
		if f.link.fs.Changed("bench-time") && f.benchTime > 0 {
			return withHint(usagef("--bench-time and the link flags exclude each other: behind a link demo compares the variants and does not load the server"),
				"for load behind a link run 'httpslab serve --rtt ...' and 'httpslab bench' against it")
		}
		return e.demoBehindLink(f.link, f.runs, f.json)
	}
	ctx, stop := interruptible(e.ctx)
	defer stop()
	srv, err := lab.Start(ctx, lab.Config{})
	if err != nil {
		return fmt.Errorf("starting the embedded server: %w", err)
	}
	defer srv.Close()
	caPath, removeCA, err := writeCA(srv.CA, "")
	if err != nil {
		return err
	}
	defer removeCA()
	rows := demoRows(srv, caPath)
	defer closeRows(rows)
	runDemoRounds(ctx, rows, f.runs)
	var res demoResult
	res.Probes = rows
	if f.benchTime > 0 && ctx.Err() == nil {
		res.Load = runDemoLoad(ctx, srv, f.benchTime)
	}
	var auditErr error
	if !f.noAudit && ctx.Err() == nil {
		res.Audit, auditErr = runDemoAudit(ctx, srv)
		if auditErr != nil {
			res.AuditErr = auditErr.Error()
		}
	}
	if f.json {
		if err := report.WriteJSON(e.stdout, "demo", res); err != nil {
			return err
		}
		return e.demoErr(ctx, res)
	}
	e.writeDemo(srv, f, res, auditErr)
	return e.demoErr(ctx, res)
}

// demoResult is what demo measured; it is also the --json result.
type demoResult struct {
	Probes   []*demoRow      `json:"probes"`
	Load     []demoLoad      `json:"load,omitempty"`
	Audit    *tlsscan.Report `json:"audit,omitempty"`
	AuditErr string          `json:"audit_error,omitempty"`
}

func (e *env) writeDemo(srv *lab.Server, f demoFlags, res demoResult, auditErr error) {
	fmt.Fprintf(e.stdout, "httpslab demo: embedded server %s (and %s), ECDSA P-256, TLS 1.2-1.3, tickets, 0-RTT\n", srv.HTTPSURL, srv.HTTPURL)
	fmt.Fprintf(e.stdout, "%d requests per variant, in interleaved rounds; medians\n\n", f.runs)
	writeDemoTable(e.stdout, res.Probes)
	writeLoopbackNote(e.stdout, res.Probes)
	if res.Load != nil {
		writeDemoLoad(e.stdout, res.Load, f.benchTime)
	}
	if res.Audit != nil || auditErr != nil {
		writeDemoAudit(e.stdout, res.Audit, auditErr)
	}
}

// demoErr is the demo's outcome: interrupted, a failed part, or nil.
func (e *env) demoErr(ctx context.Context, res demoResult) error {
	if ctx.Err() != nil {
		return e.interrupted()
	}
	for _, r := range res.Probes {
		if r.Err != "" {
			return fmt.Errorf("demo: %s failed: %s", r.Variant, r.Err)
		}
	}
	for _, l := range res.Load {
		if l.Err != "" {
			return fmt.Errorf("demo: load %s failed: %s", l.Name, l.Err)
		}
	}
	if res.AuditErr != "" {
		return fmt.Errorf("demo: audit failed: %s", res.AuditErr)
	}
	return nil
}

// writeLoopbackNote says what the times on loopback are, with the RTT the
// kernel measured, so that nobody reads CPU time as network time.
func writeLoopbackNote(w io.Writer, rows []*demoRow) {
	var rtts []float64
	for _, r := range rows {
		for _, tl := range r.Runs {
			if tl.RTT.Kernel > 0 {
				rtts = append(rtts, float64(tl.RTT.Kernel))
			}
		}
	}
	if len(rtts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nround trip on loopback: %.0f µs (kernel, median): the handshake times above are CPU, not\n"+
		"round trips. 'httpslab demo --rtt 50ms' (root) puts the server behind an emulated link.\n",
		stats.Median(rtts)/float64(time.Microsecond))
}

// demoRows makes a client per variant.
func demoRows(srv *lab.Server, caPath string) []*demoRow {
	var rows []*demoRow
	for _, v := range demoVariants {
		u := srv.HTTPURL + "/"
		if v.HTTPS {
			u = srv.HTTPSURL + "/"
		}
		row := &demoRow{Variant: v.Name, variant: v}
		c, err := probe.New(probe.Config{URL: u, Protocol: v.Protocol, TLS: transport.TLS{CAFile: caPath}, Timeout: 10 * time.Second})
		if err != nil {
			row.Err = err.Error()
		}
		row.client = c
		rows = append(rows, row)
	}
	return rows
}

func closeRows(rows []*demoRow) {
	for _, r := range rows {
		if r.client != nil {
			r.client.Close()
		}
	}
}

// runDemoRounds primes every variant that needs it (a first connection
// whose session the next ones resume, or whose connection they reuse),
// then runs the variants in interleaved rounds, so that a slow moment of
// the machine hits them all alike. A failed variant drops out.
func runDemoRounds(ctx context.Context, rows []*demoRow, runs int) {
	for _, r := range rows {
		if r.Err == "" && r.variant.Mode != probe.Fresh {
			if _, err := r.client.Do(ctx, r.variant.Mode); err != nil {
				r.Err = err.Error()
			}
		}
	}
	for range runs {
		for _, r := range rows {
			if r.Err != "" || ctx.Err() != nil {
				continue
			}
			res, err := r.client.Do(ctx, r.variant.Mode)
			if err != nil {
				r.Err = err.Error()
				continue
			}
			tl := *res.Final()
			r.Runs = append(r.Runs, tl)
			if tl.TLS != nil && tl.TLS.Resumed {
				r.Resumed++
			}
			if tl.TLS != nil && tl.TLS.EarlyData {
				r.Early++
			}
		}
	}
}

// writeDemoTable prints one line per variant with the medians.
func writeDemoTable(w io.Writer, rows []*demoRow) {
	fmt.Fprintf(w, "%-24s %10s %10s %10s %10s %9s  %s\n", "variant", "connect", "TLS", "wait", "total", "hs bytes", "notes")
	for _, r := range rows {
		if len(r.Runs) == 0 {
			fmt.Fprintf(w, "%-24s failed: %s\n", r.Variant, r.Err)
			continue
		}
		fmt.Fprintf(w, "%-24s %10s %10s %10s %10s %9s  %s\n", r.Variant,
			demoMs(r.median(phaseOf(probe.PhaseConnect))), demoMs(r.median(phaseOf(probe.PhaseTLS))),
			demoMs(r.median(phaseOf(probe.PhaseWait))), demoMs(r.median(totalOf)),
			demoBytes(r.median(handshakeBytes)), r.notes())
	}
	if slices.ContainsFunc(rows, func(r *demoRow) bool { return r.Early > 0 }) {
		fmt.Fprintf(w, "%-24s the request leaves with the first flight, so its wait overlaps TLS: read its total\n", "0-RTT:")
	}
}

// notes says what the handshake did, so that a "resumed" row that did
// not resume cannot pass unnoticed.
func (r *demoRow) notes() string {
	n := len(r.Runs)
	s := ""
	switch r.variant.Mode {
	case probe.Resume:
		s = fmt.Sprintf("resumed %d/%d", r.Resumed, n)
	case probe.ZeroRTT:
		s = fmt.Sprintf("0-RTT accepted %d/%d", r.Early, n)
	case probe.Reuse:
		s = "no handshake"
	}
	if tl := r.Runs[0]; tl.TLS != nil {
		s = strings.TrimSpace(fmt.Sprintf("%s %s %s", tl.TLS.Version, tl.TLS.Group, s))
	}
	if r.Err != "" {
		s += " (then failed: " + r.Err + ")"
	}
	return s
}

// median returns the median of a per-run value over the runs that have
// it; ok is false when none has.
func (r *demoRow) median(value func(*probe.Timeline) (float64, bool)) (float64, bool) {
	var xs []float64
	for i := range r.Runs {
		if v, ok := value(&r.Runs[i]); ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	return stats.Median(xs), true
}

func phaseOf(name string) func(*probe.Timeline) (float64, bool) {
	return func(t *probe.Timeline) (float64, bool) {
		p, ok := t.Phase(name)
		return float64(p.Duration), ok
	}
}

func totalOf(t *probe.Timeline) (float64, bool) { return float64(t.Total), true }

func handshakeBytes(t *probe.Timeline) (float64, bool) {
	n := t.Bytes.HandshakeRead + t.Bytes.HandshakeWritten
	return float64(n), n > 0
}

func demoMs(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.3f ms", v/float64(time.Millisecond))
}

func demoBytes(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f B", v)
}
