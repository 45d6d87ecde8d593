package report

// The text report of bench, after ab, wrk and hey: summary, TLS,
// ab-style connection times, percentiles, a latency histogram, CPU and the
// distinct errors.

import (
	"cmp"
	"crypto/tls"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// BenchPercentiles are the quantiles bench's reports show, in percent.
var BenchPercentiles = []float64{50, 75, 90, 95, 99, 99.9, 99.99}

// Bench writes the human report of a bench run: summary, TLS, ab-style
// connection times, percentiles, a latency histogram, CPU and the
// distinct errors.
func Bench(w io.Writer, r *load.Result) error {
	var b strings.Builder
	benchSummary(&b, r)
	benchTLS(&b, r)
	benchTimes(&b, r)
	benchPercentiles(&b, r)
	benchDistribution(&b, r.Latency.Total)
	benchCPU(&b, r)
	benchErrors(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func benchSummary(b *strings.Builder, r *load.Result) {
	c := r.Config
	model := "closed model"
	if c.Rate > 0 {
		model = fmt.Sprintf("open model, %.6g req/s", c.Rate)
	}
	fmt.Fprintf(b, "Target:          %s", c.Targets[0].URL)
	if len(c.Targets) > 1 {
		fmt.Fprintf(b, " (+%d more, rotated)", len(c.Targets)-1)
	}
	fmt.Fprintf(b, "\nLoad:            %s, %s", c.ProtocolName(), plural(c.Conns, "connection"))
	if c.AskedConns() > c.Conns {
		fmt.Fprintf(b, " (-c %d asked: -n %d needs no more)", c.AskedConns(), c.Requests)
	}
	// A connection that carries fewer requests than -m or --pipeline
	// never has that many in flight: the line says what ran.
	streams, pipeline := c.Streams, c.Pipeline
	if c.RequestsPerConn > 0 {
		streams, pipeline = min(streams, c.RequestsPerConn), min(pipeline, c.RequestsPerConn)
	}
	switch {
	case streams > 1:
		fmt.Fprintf(b, " x %d streams", streams)
	case pipeline > 1:
		fmt.Fprintf(b, ", pipeline %d", pipeline)
	}
	perConn := fmt.Sprintf("%d requests", c.RequestsPerConn)
	if c.RequestsPerConn == 1 {
		perConn = "1 request"
	}
	switch s := r.ServerStreams; {
	case s != nil && *s == 0:
		b.WriteString(" (the server allowed no streams: SETTINGS_MAX_CONCURRENT_STREAMS 0)")
	case s != nil && int64(streams) > *s:
		fmt.Fprintf(b, " (the server allows %d at once)", *s)
	}
	switch {
	case streams < c.Streams:
		fmt.Fprintf(b, " (-m %d asked: a connection of %s has at most %d in flight)", c.Streams, perConn, streams)
	case pipeline < c.Pipeline:
		fmt.Fprintf(b, " (--pipeline %d asked: a connection of %s has at most %d in flight)", c.Pipeline, perConn, pipeline)
	}
	fmt.Fprintf(b, ", --conn %s", c.Mode)
	switch {
	case c.RequestsPerConn == 1:
		b.WriteString(" (1 request per connection)")
	case c.RequestsPerConn > 1:
		fmt.Fprintf(b, " (%d requests per connection)", c.RequestsPerConn)
	}
	fmt.Fprintf(b, ", %s\n", model)
	if r.Client != "" {
		fmt.Fprintf(b, "Client:          %s\n", r.Client)
	}
	if r.Merged != nil {
		benchMerged(b, r.Merged)
	}
	if r.Interrupted {
		b.WriteString("Interrupted:     yes, a partial report\n")
	}
	fmt.Fprintf(b, "Time taken:      %.3f s\n", r.Elapsed.Seconds())
	fmt.Fprintf(b, "Requests:        %d completed, %d failed (%.3g%%)\n", r.Requests, r.Errors, 100*r.ErrorRate())
	fmt.Fprintf(b, "Requests/s:      %.1f\n", r.RequestRate())
	if r.Connections > 0 || r.DialErrors > 0 {
		fmt.Fprintf(b, "Connections:     %d opened, %d failed\n", r.Connections, r.DialErrors)
	}
	if r.Handshakes > 0 {
		fmt.Fprintf(b, "Handshakes/s:    %.1f (%d full, %d resumed)\n", r.HandshakeRate(), r.Handshakes-r.Resumed, r.Resumed)
	}
	fmt.Fprintf(b, "Transfer:        %s of response bodies, %s/s\n", bytesString(float64(r.Bytes)), bytesString(r.ByteRate()))
	codes := slices.Sorted(maps.Keys(r.Status))
	b.WriteString("Status codes:   ")
	for _, code := range codes {
		fmt.Fprintf(b, " %d: %d", code, r.Status[code])
	}
	if len(codes) == 0 {
		b.WriteString(" none (no response)")
	}
	b.WriteString("\n")
	if c.Rate > 0 {
		fmt.Fprintf(b, "Send rate:       %.1f/s achieved of %.6g/s\n", r.SendRate(), c.Rate)
		fmt.Fprintf(b, "Schedule:        %d sends late by more than %s, largest lag %s, %d dropped (all workers busy)\n",
			r.Late, load.LateAfter, r.MaxLag.Round(time.Microsecond), r.Dropped)
		writeCapacity(b, r)
	}
}

// benchMerged says what a merged result was combined from.
func benchMerged(b *strings.Builder, m *load.Merged) {
	hosts := make([]string, len(m.Hosts))
	for i, h := range m.Hosts {
		hosts[i] = Escape(h)
	}
	fmt.Fprintf(b, "Merged:          %s", plural(m.Results, "result"))
	if m.Workers > 0 {
		fmt.Fprintf(b, " (the %d workers of one run)", m.Workers)
	}
	fmt.Fprintf(b, " from %s; starts %s apart", strings.Join(hosts, ", "), m.StartSkew.Round(time.Microsecond))
	if m.ClockCorrected {
		b.WriteString(" (clock offsets corrected)")
	}
	if m.Dropped > 0 {
		fmt.Fprintf(b, "; %d histogram values dropped (counts past int64)", m.Dropped)
	}
	b.WriteString("\n")
}

// writeCapacity says, when sends were dropped with every worker busy,
// what rate the workers could hold at the latency they met, and the -c
// that the asked rate needs.
func writeCapacity(b *strings.Builder, r *load.Result) {
	cp, ok := r.Capacity()
	if !ok || r.Dropped == 0 || cp.Rate >= r.Config.Rate {
		return
	}
	fmt.Fprintf(b, "Capacity:        %s in flight at a mean %s each hold at most %.0f/s, below --rate %.6g; raise -c to %d or more\n",
		plural(cp.Workers, "request"), cp.Mean.Round(10*time.Microsecond), cp.Rate, r.Config.Rate, cp.Conns)
}

// plural writes a count and its noun: "1 connection", "2 connections".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func bytesString(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %s", n, units[i])
}

func benchTLS(b *strings.Builder, r *load.Result) {
	if len(r.TLS) == 0 {
		return
	}
	width := 28 // the cipher column fits TLS 1.3's names; TLS 1.2's can be longer
	for _, t := range r.TLS {
		width = max(width, len(tls.CipherSuiteName(t.Cipher)))
	}
	fmt.Fprintf(b, "\nTLS handshakes   %-8s %-*s %-16s %9s %9s\n", "version", width, "cipher", "group", "full", "resumed")
	for _, t := range r.TLS {
		curve := "-"
		if t.Curve != 0 {
			curve = transport.GroupName(t.Curve)
		}
		fmt.Fprintf(b, "                 %-8s %-*s %-16s %9d %9d\n",
			tls.VersionName(t.Version), width, tls.CipherSuiteName(t.Cipher), curve, t.Full, t.Resumed)
	}
	benchKeyShares(b, r.KeyShares)
	if r.Handshakes > 0 {
		fmt.Fprintf(b, "Resumption rate: %.1f%%\n", 100*float64(r.Resumed)/float64(r.Handshakes))
	}
}

// benchKeyShares writes which groups the handshakes offered and which had
// a key share, labelled with what a full handshake stood for: a browser's
// first visit (every share each time) or a returning one (the server's
// group alone, once learned).
func benchKeyShares(b *strings.Builder, k load.KeyShareUse) {
	if len(k.Offered) == 0 {
		return
	}
	switch {
	case k.Learned != 0:
		fmt.Fprintf(b, "Key shares:      returning visit: %s (learned; first handshake %s), offered %s",
			groupList(k.LearnedShares, "+"), groupList(k.Shares, "+"), groupList(k.LearnedOffered, ", "))
	case k.FirstVisit:
		fmt.Fprintf(b, "Key shares:      first visit: %s on every handshake, offered %s", groupList(k.Shares, "+"), groupList(k.Offered, ", "))
	default:
		fmt.Fprintf(b, "Key shares:      %s, offered %s", groupList(k.Shares, "+"), groupList(k.Offered, ", "))
	}
	fmt.Fprintf(b, "; %d HelloRetryRequests\n", k.HelloRetries)
}

func groupList(ids []tls.CurveID, sep string) string {
	return strings.Join(groupNames(ids), sep)
}

// benchTimes writes the ab-style table. Connect and TLS count once per
// new connection; Waiting and Total once per completed request.
func benchTimes(b *strings.Builder, r *load.Result) {
	b.WriteString("\nConnection Times (ms)\n")
	fmt.Fprintf(b, "%-10s %9s %9s %8s %9s %9s %10s\n", "", "min", "mean", "[+/-sd]", "median", "max", "count")
	rows := []struct {
		name string
		h    *hdrhistogram.Histogram
	}{{"Connect:", r.Latency.Connect}, {"TLS:", r.Latency.TLS}, {"Waiting:", r.Latency.Waiting}, {"Total:", r.Latency.Total}}
	for _, row := range rows {
		h := row.h
		if h.TotalCount() == 0 {
			continue
		}
		fmt.Fprintf(b, "%-10s %9s %9s %8s %9s %9s %10d\n", row.name, usMS(float64(h.Min())), usMS(h.Mean()),
			usMS(h.StdDev()), usMS(float64(h.ValueAtQuantile(50))), usMS(float64(h.Max())), h.TotalCount())
	}
}

// usMS formats microseconds as milliseconds.
func usMS(us float64) string { return fmt.Sprintf("%.3f", us/1000) }

func benchPercentiles(b *strings.Builder, r *load.Result) {
	h := r.Latency.Total
	if h.TotalCount() == 0 {
		return
	}
	title := "Latency percentiles (ms, total)"
	if r.Config.Rate > 0 {
		title = "Latency percentiles (ms): from the intended send (corrected for coordinated omission) | from the actual send"
	}
	fmt.Fprintf(b, "\n%s\n", title)
	for _, p := range BenchPercentiles {
		fmt.Fprintf(b, "  %-7s %10s", fmt.Sprintf("p%g", p), usMS(float64(h.ValueAtQuantile(p))))
		if r.Config.Rate > 0 {
			fmt.Fprintf(b, " | %10s", usMS(float64(r.Latency.Service.ValueAtQuantile(p))))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "  %-7s %10s", "max", usMS(float64(h.Max())))
	if r.Config.Rate > 0 {
		fmt.Fprintf(b, " | %10s", usMS(float64(r.Latency.Service.Max())))
	}
	b.WriteString("\n")
}

// benchDistribution draws the total latency as ten equal-width buckets
// between min and max with a bar of '#' per bucket, as hey does.
func benchDistribution(b *strings.Builder, h *hdrhistogram.Histogram) {
	n := h.TotalCount()
	if n == 0 {
		return
	}
	lo, hi := h.Min(), h.Max()
	const buckets = 10
	width := max((hi-lo+buckets-1)/buckets, 1)
	var counts [buckets]int64
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		i := min(int((bar.From-lo)/width), buckets-1)
		counts[max(i, 0)] += bar.Count
	}
	top := slices.Max(counts[:])
	b.WriteString("\nLatency distribution (ms, total)\n")
	for i, c := range counts {
		bar := strings.Repeat("#", int(40*c/max(top, 1)))
		fmt.Fprintf(b, "  %10s [%9d] %s\n", usMS(float64(lo+int64(i+1)*width)), c, bar)
	}
}

func benchCPU(b *strings.Builder, r *load.Result) {
	c := r.CPU
	b.WriteString("\nCPU\n")
	benchCPULine(b, "Client:", c.ClientUser, c.ClientSystem, r)
	fmt.Fprintf(b, "  client used %.0f%% of %s core(s)", 100*c.ClientShare(), coresText(c.ClientCapacity()))
	if c.ClientQuota > 0 {
		b.WriteString(" (its cgroup CPU quota)")
	}
	b.WriteString("\n")
	if c.ServerMeasured {
		benchCPULine(b, "Server:", c.ServerUser, c.ServerSystem, r)
		if c.Wall > 0 {
			// A single-threaded server (one nginx worker) near 1.00 is
			// the limit, whatever the client could do.
			fmt.Fprintf(b, "  server kept %.2f cores busy on average\n", float64(c.ServerUser+c.ServerSystem)/float64(c.Wall))
		}
		if c.NotListening {
			fmt.Fprintf(b, "  note: no --server-pid process (nor a child) receives on port %d: its CPU time is not the\n"+
				"  server's, unless it is the server's backend (php-fpm behind nginx); check the PID\n", c.ServerPort)
		}
	} else if c.ServerError != "" {
		fmt.Fprintf(b, "  server CPU not measured: %s\n", c.ServerError)
	}
	if c.OthersMeasured && c.Wall > 0 {
		fmt.Fprintf(b, "  Others:  other processes kept %.2f cores busy on average", c.OthersCores())
		if !c.ServerMeasured {
			b.WriteString(" (the server among them, if it runs here)")
		}
		b.WriteString("\n")
	}
	if l := r.Limit(); l != "" {
		fmt.Fprintf(b, "  Limit:   %s\n", l)
	}
	if c.StealMeasured {
		fmt.Fprintf(b, "  Steal:   %s\n", c.Steal.Line())
	}
}

func benchCPULine(b *strings.Builder, who string, user, sys time.Duration, r *load.Result) {
	total := user + sys
	fmt.Fprintf(b, "  %-8s user %.3f s, system %.3f s", who, user.Seconds(), sys.Seconds())
	// Failed requests cost CPU too (a refused dial is retried at once):
	// counted over completed requests only, a run against a dead server
	// showed 90 µs per request where each attempt took 30.
	switch n := r.Requests + r.Errors; {
	case r.Errors > 0:
		fmt.Fprintf(b, "; %.2f µs per request (failed ones included)", float64(total.Microseconds())/float64(n))
	case n > 0:
		fmt.Fprintf(b, "; %.2f µs per request", float64(total.Microseconds())/float64(n))
	}
	if r.Handshakes > 0 && r.Config.Mode != transport.KeepAlive {
		fmt.Fprintf(b, ", %.1f µs per handshake", float64(total.Microseconds())/float64(r.Handshakes))
	}
	b.WriteString("\n")
}

func benchErrors(b *strings.Builder, r *load.Result) {
	if len(r.ErrorCounts) == 0 {
		return
	}
	b.WriteString("\nErrors\n")
	msgs := slices.SortedFunc(maps.Keys(r.ErrorCounts), func(x, y string) int {
		return cmp.Or(cmp.Compare(r.ErrorCounts[y], r.ErrorCounts[x]), strings.Compare(x, y))
	})
	for _, m := range msgs {
		fmt.Fprintf(b, "  %9d  %s\n", r.ErrorCounts[m], Escape(m))
	}
}

// coresText writes a number of cores to two decimals at most: "1", and
// "0.5" when a quota made it a fraction.
func coresText(c float64) string {
	return strconv.FormatFloat(math.Round(c*100)/100, 'f', -1, 64)
}
