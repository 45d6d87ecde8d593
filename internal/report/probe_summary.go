package report

// The -n summary table, one row per phase:
//
//	10 requests to https://127.0.0.1:8443/, each on a new connection
//	  phase       runs        min     median        p90        max
//	  DNS           10   0.010 ms   0.012 ms   0.020 ms   0.030 ms
//	  ...
//	  total         10   1.234 ms   ...
//	  TLS resumed 9 of 10
//
// "runs" counts the requests in which the phase happened. Quantiles
// interpolate between ranks (the median of an even count is the mean of
// the middle two). Totals count successful requests only; the phases a
// failed request completed still count. With --resume the table is
// followed by what resumption saved: the median TLS phase and handshake
// bytes of full handshakes against resumed ones.

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/stats"
)

// SummaryOptions tune the summary.
type SummaryOptions struct {
	// Resume adds what session resumption saved (for --resume).
	Resume bool
	// ZeroRTT adds what 0-RTT saved in total time (for --0rtt).
	ZeroRTT bool
}

// phaseOrder is the order of the rows.
var phaseOrder = []string{probe.PhaseDNS, probe.PhaseConnect, probe.PhaseTLS, probe.PhaseSend, probe.PhaseWait, probe.PhaseDownload}

// Summary writes per-phase statistics of several requests.
func Summary(w io.Writer, runs []probe.Timeline, opt SummaryOptions) error {
	if len(runs) == 0 {
		return fmt.Errorf("writing summary: no requests")
	}
	ew := &errWriter{w: w}
	noun := "requests"
	if len(runs) == 1 {
		noun = "request"
	}
	ew.printf("%d %s to %s\n", len(runs), noun, runs[0].URL)
	ew.printf("  %-9s %5s %11s %11s %11s %11s\n", "phase", "runs", "min", "median", "p90", "max")
	for _, name := range phaseOrder {
		var ds []time.Duration
		for i := range runs {
			if ph, ok := runs[i].Phase(name); ok {
				ds = append(ds, ph.Duration)
			}
		}
		if len(ds) > 0 {
			writeDistRow(ew, label(name), summarize(ds))
		}
	}
	var totals []time.Duration
	for _, r := range runs {
		if r.Err == "" {
			totals = append(totals, r.Total)
		}
	}
	if len(totals) > 0 {
		writeDistRow(ew, "total", summarize(totals))
	}
	writeTLSCounts(ew, runs)
	writeErrors(ew, runs)
	if opt.Resume || opt.ZeroRTT {
		writeResumeSaving(ew, runs)
	}
	if opt.ZeroRTT {
		writeEarlySaving(ew, runs)
	}
	return ew.err
}

func writeDistRow(ew *errWriter, name string, d dist[time.Duration]) {
	ew.printf("  %-9s %5d %11s %11s %11s %11s\n", name, d.Count, ms(d.Min), ms(d.Median), ms(d.P90), ms(d.Max))
}

// writeTLSCounts says how many handshakes were resumed.
func writeTLSCounts(ew *errWriter, runs []probe.Timeline) {
	handshakes, resumed, early := 0, 0, 0
	for _, r := range runs {
		if _, ok := r.Phase(probe.PhaseTLS); ok && r.TLS != nil {
			handshakes++
			if r.TLS.Resumed {
				resumed++
			}
			if r.TLS.EarlyData {
				early++
			}
		}
	}
	if handshakes > 0 {
		ew.printf("TLS resumed %d of %d handshakes", resumed, handshakes)
		if early > 0 {
			ew.printf(", 0-RTT accepted in %d", early)
		}
		ew.printf("\n")
	}
}

// localPort is the local address's port in a socket error
// ("read tcp 127.0.0.1:54288->127.0.0.1:443: ..."): it differs on each
// connection, and errors that differ only there are one error.
var localPort = regexp.MustCompile(`(\S+):\d+->`)

// writeErrors lists the distinct errors with their counts, most frequent
// first; the local port of a socket error is left out.
func writeErrors(ew *errWriter, runs []probe.Timeline) {
	counts := map[string]int{}
	for _, r := range runs {
		if r.Err != "" {
			counts[localPort.ReplaceAllString(r.Err, "$1->")]++
		}
	}
	if len(counts) == 0 {
		return
	}
	errs := make([]string, 0, len(counts))
	failed := 0
	for e, n := range counts {
		errs = append(errs, e)
		failed += n
	}
	slices.SortFunc(errs, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		if a < b {
			return -1
		}
		return 1
	})
	ew.printf("failed %d of %d requests:\n", failed, len(runs))
	for _, e := range errs {
		ew.printf("  %4d × %s\n", counts[e], Escape(e))
	}
}

// writeResumeSaving compares full handshakes with resumed ones.
func writeResumeSaving(ew *errWriter, runs []probe.Timeline) {
	var full, res []time.Duration
	var fullBytes, resBytes []int64
	for _, r := range runs {
		ph, ok := r.Phase(probe.PhaseTLS)
		if !ok || r.TLS == nil {
			continue
		}
		n := r.Bytes.HandshakeWritten + r.Bytes.HandshakeRead
		if r.TLS.Resumed {
			res, resBytes = append(res, ph.Duration), append(resBytes, n)
		} else {
			full, fullBytes = append(full, ph.Duration), append(fullBytes, n)
		}
	}
	if len(full) == 0 || len(res) == 0 {
		ew.printf("resumption: %d full and %d resumed handshakes, nothing to compare\n", len(full), len(res))
		return
	}
	f, r := summarize(full).Median, summarize(res).Median
	ew.printf("resumption %s: TLS median %s full (%d) vs %s resumed (%d)\n", saved(f, r, "handshake"), ms(f), len(full), ms(r), len(res))
	fb, rb := summarize(fullBytes).Median, summarize(resBytes).Median
	ew.printf("  handshake bytes median %s full vs %s resumed (%s fewer)\n", byteCount(fb), byteCount(rb), byteCount(fb-rb))
}

// writeEarlySaving compares the total time of requests sent as 0-RTT
// early data with those after a full handshake. The phase rows cannot
// show it: an early request is sent and answered while the handshake is
// still running, so its send and wait overlap the TLS phase.
func writeEarlySaving(ew *errWriter, runs []probe.Timeline) {
	var full, early []time.Duration
	for _, r := range runs {
		if r.Err != "" || r.TLS == nil {
			continue
		}
		switch {
		case r.TLS.EarlyData:
			early = append(early, r.Total)
		case !r.TLS.Resumed:
			full = append(full, r.Total)
		}
	}
	if len(early) == 0 {
		ew.printf("0-RTT: the server accepted no early data, nothing to compare\n")
		return
	}
	ew.printf("0-RTT requests leave with the first flight: their send and wait overlap the TLS phase\n")
	if len(full) == 0 {
		return
	}
	f, e := summarize(full).Median, summarize(early).Median
	ew.printf("0-RTT %s: total median %s full (%d) vs %s with 0-RTT (%d)\n", saved(f, e, "request"), ms(f), len(full), ms(e), len(early))
}

// saved says what a shorter time than before saved, per unit, and in
// percent of before.
func saved(before, after time.Duration, per string) string {
	if after >= before {
		return "saved no time"
	}
	return fmt.Sprintf("saved %s per %s (%.0f%%)", ms(before-after), per, 100*float64(before-after)/float64(before))
}

// dist is the summary of one sample (durations or byte counts).
type dist[T ~int64] struct {
	Count                 int
	Min, Median, P90, Max T
}

// summarize returns the distribution of values, with stats' quantiles
// rounded to the nearest unit.
func summarize[T ~int64](values []T) dist[T] {
	if len(values) == 0 {
		return dist[T]{}
	}
	xs := make([]float64, len(values))
	for i, v := range values {
		xs[i] = float64(v)
	}
	s := stats.Sorted(xs)
	q := func(p float64) T { return T(math.Round(stats.Quantile(s, p))) }
	return dist[T]{Count: len(s), Min: T(s[0]), Median: q(0.5), P90: q(0.9), Max: T(s[len(s)-1])}
}
