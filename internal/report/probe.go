package report

import (
	"fmt"
	"io"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// ProbeOptions chooses how Probe shows the runs of 'httpslab probe'.
type ProbeOptions struct {
	// Summary shows the runs as one summary table (-n) rather than a
	// waterfall each.
	Summary bool
	// Resume and ZeroRTT add what resumption or 0-RTT saved.
	Resume, ZeroRTT bool
	// Color colours the waterfalls.
	Color bool
}

// Probe writes the runs of probe as text: a summary table, or a
// waterfall per run, headed by its connection mode when there are
// several, followed for --resume and --0rtt by what resumption saved.
func Probe(w io.Writer, results []*probe.Result, opt ProbeOptions) error {
	if len(results) == 0 {
		return nil
	}
	if opt.Summary {
		return probeSummary(w, results, opt)
	}
	for i, r := range results {
		if len(results) > 1 {
			fmt.Fprintf(w, "== connection %d: %s\n", i+1, runLabel(i, r))
		}
		if err := Waterfall(w, r.Hops, WaterfallOptions{Color: opt.Color}); err != nil {
			return err
		}
		if len(results) > 1 {
			fmt.Fprintln(w)
		}
	}
	if (opt.Resume || opt.ZeroRTT) && len(results) > 1 {
		return probeSummary(w, results, opt)
	}
	return nil
}

func probeSummary(w io.Writer, results []*probe.Result, opt ProbeOptions) error {
	var finals []probe.Timeline
	for _, r := range results {
		if fin := r.Final(); fin != nil {
			finals = append(finals, *fin)
		}
	}
	if err := Summary(w, finals, SummaryOptions{Resume: opt.Resume, ZeroRTT: opt.ZeroRTT}); err != nil {
		return err
	}
	return RedirectSummary(w, results)
}

// runLabel says what kind of connection run i used.
func runLabel(i int, r *probe.Result) string {
	fin := r.Final()
	switch {
	case r.Mode == transport.KeepAlive:
		return "same connection as before"
	case i == 0 && r.Mode != transport.Fresh:
		return "new connection, full handshake (primes the session cache)"
	case fin != nil && fin.TLS != nil && fin.TLS.EarlyData:
		return "new connection, resumed, request sent as 0-RTT early data"
	case r.Mode == transport.ZeroRTT && fin != nil && fin.TLS != nil && fin.TLS.Resumed:
		return "new connection, resumed, but the server REFUSED 0-RTT: the request went after the handshake"
	case fin != nil && fin.TLS != nil && fin.TLS.Resumed:
		return "new connection, resumed session"
	case r.Mode != transport.Fresh:
		return "new connection, NOT resumed (the server refused or sent no ticket)"
	}
	return "new connection"
}

// WriteProbeJSON writes the runs of probe as its JSON document
// (ProbeJSON): the URL of the first run, every run, and whether the
// probe was interrupted.
func WriteProbeJSON(w io.Writer, results []*probe.Result, interrupted bool) error {
	return WriteJSON(w, "probe", NewProbeJSON(results, interrupted))
}

// NewProbeJSON returns the JSON form of a probe's runs.
func NewProbeJSON(results []*probe.Result, interrupted bool) ProbeJSON {
	doc := ProbeJSON{Runs: results, Interrupted: interrupted}
	if len(results) > 0 && len(results[0].Hops) > 0 {
		doc.URL = results[0].Hops[0].URL
	}
	return doc
}

// WriteOutRuns executes the -w format once per run; filename is the -o
// file name, for %{filename_effective}.
func WriteOutRuns(stdout, stderr io.Writer, wo *WriteOut, results []*probe.Result, filename string) error {
	for _, r := range results {
		// %{exitcode} is curl's code for the failure, as a script
		// written for curl -w expects (28 a timeout, 60 a certificate).
		// A failed hop fails the run, so r.Err covers it too.
		in := WriteOutInput{Hops: r.Hops, Err: r.Err, ErrorMessage: r.Error, Filename: filename,
			ExitCode: CurlExitCode(r.Err, r.Final())}
		if err := wo.Execute(stdout, stderr, in); err != nil {
			return err
		}
	}
	return nil
}
