package report

// bench's CSV (bench --csv): a header line, then one line per run, so that
// the runs of several invocations (a sweep over -c, a before and an after)
// line up in one spreadsheet. Times are in milliseconds to the
// microsecond, from the run's HDR histograms; a phase that did not happen
// (no new connection, no TLS, the closed model's service time) leaves its
// cells empty rather than 0. Text cells are escaped for spreadsheets (see
// csvText).
//
//	target              the first target URL
//	targets             how many target URLs the run rotated through
//	protocol            HTTP/1.1, HTTP/2 or HTTP/3
//	connections         connections that ran (-c, lowered by -n)
//	streams, pipeline   requests in flight per connection asked (-m, --pipeline)
//	conn_mode           keepalive, new or resume (--conn)
//	rate_per_s          the open model's --rate; 0 for the closed model
//	interrupted         true when the run was stopped before its end
//	elapsed_s           run start to last response
//	requests, errors    completed requests (any status) and failed ones
//	requests_per_s      completed requests per second of elapsed time
//	connections_opened  connections opened; dial_errors those that failed to open
//	handshakes, resumed TLS handshakes and how many of them resumed a session
//	handshakes_per_s    TLS handshakes per second of elapsed time
//	body_bytes          response body bytes read (framing left out)
//	status              each status code and its count, "200:990 503:10"
//	send_rate_per_s     open model: the rate requests were actually sent at
//	late_sends          open model: sends more than 1 ms behind schedule
//	dropped_sends       open model: sends dropped because every worker was busy
//	max_lag_ms          open model: the largest lag behind schedule
//	total_*_ms          total latency: mean, sd, min, p50 ... p99.99, max
//	                    (open model: from the intended send)
//	service_p50_ms, service_p99_ms   open model: from the actual send
//	connect_*, tls_*, waiting_*      mean, p50 and p99 of TCP connect, TLS
//	                    handshake and waiting (request written to first byte)
//	client_user_s, client_system_s, client_cores   the client's CPU
//	server_user_s, server_system_s  --server-pid's CPU; empty when not measured

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
)

// benchCSVHeader is the header line; BenchCSV's columns follow it.
func benchCSVHeader() []string {
	h := []string{"target", "targets", "protocol", "connections", "streams", "pipeline", "conn_mode", "rate_per_s",
		"interrupted", "elapsed_s", "requests", "errors", "requests_per_s", "connections_opened", "dial_errors",
		"handshakes", "resumed", "handshakes_per_s", "body_bytes", "status", "send_rate_per_s", "late_sends",
		"dropped_sends", "max_lag_ms", "total_mean_ms", "total_sd_ms", "total_min_ms"}
	for _, p := range BenchPercentiles {
		h = append(h, "total_p"+strconv.FormatFloat(p, 'f', -1, 64)+"_ms")
	}
	h = append(h, "total_max_ms", "service_p50_ms", "service_p99_ms")
	for _, phase := range []string{"connect", "tls", "waiting"} {
		h = append(h, phase+"_mean_ms", phase+"_p50_ms", phase+"_p99_ms")
	}
	return append(h, "client_user_s", "client_system_s", "client_cores", "server_user_s", "server_system_s")
}

// BenchCSV writes bench results as CSV: the header line, then one line
// per result, in the columns listed at the top of this file.
func BenchCSV(w io.Writer, results ...*load.Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(benchCSVHeader()); err != nil {
		return fmt.Errorf("writing bench csv: %w", err)
	}
	for _, r := range results {
		if err := cw.Write(benchCSVRow(r)); err != nil {
			return fmt.Errorf("writing bench csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing bench csv: %w", err)
	}
	return nil
}

func benchCSVRow(r *load.Result) []string {
	c := r.Config
	row := []string{csvText(c.Targets[0].URL), strconv.Itoa(len(c.Targets)), c.Protocol.String(),
		strconv.Itoa(c.Conns), strconv.Itoa(c.Streams), strconv.Itoa(c.Pipeline), c.Mode.String(), csvFloat(c.Rate),
		strconv.FormatBool(r.Interrupted), csvFloat(r.Elapsed.Seconds()), csvInt(r.Requests), csvInt(r.Errors),
		csvFloat(r.RequestRate()), csvInt(r.Connections), csvInt(r.DialErrors), csvInt(r.Handshakes),
		csvInt(r.Resumed), csvFloat(r.HandshakeRate()), csvInt(r.Bytes), benchStatusCell(r.Status),
		csvFloat(r.SendRate()), csvInt(r.Late), csvInt(r.Dropped), csvFloat(float64(r.MaxLag.Microseconds()) / 1000)}
	t := r.Latency.Total
	row = append(row, histCells(t, 3, func(h *hdrhistogram.Histogram) []float64 {
		return []float64{h.Mean(), h.StdDev(), float64(h.Min())}
	})...)
	row = append(row, histCells(t, len(BenchPercentiles)+1, func(h *hdrhistogram.Histogram) []float64 {
		var v []float64
		for _, p := range BenchPercentiles {
			v = append(v, float64(h.ValueAtQuantile(p)))
		}
		return append(v, float64(h.Max()))
	})...)
	row = append(row, histCells(r.Latency.Service, 2, p50p99)...)
	for _, h := range []*hdrhistogram.Histogram{r.Latency.Connect, r.Latency.TLS, r.Latency.Waiting} {
		row = append(row, histCells(h, 3, func(h *hdrhistogram.Histogram) []float64 {
			return append([]float64{h.Mean()}, p50p99(h)...)
		})...)
	}
	cpu := r.CPU
	row = append(row, csvFloat(cpu.ClientUser.Seconds()), csvFloat(cpu.ClientSystem.Seconds()), strconv.Itoa(cpu.ClientCores))
	if !cpu.ServerMeasured {
		return append(row, "", "")
	}
	return append(row, csvFloat(cpu.ServerUser.Seconds()), csvFloat(cpu.ServerSystem.Seconds()))
}

func p50p99(h *hdrhistogram.Histogram) []float64 {
	return []float64{float64(h.ValueAtQuantile(50)), float64(h.ValueAtQuantile(99))}
}

// histCells formats the n values f takes from h, in microseconds, as
// milliseconds; the n cells of an empty histogram are empty.
func histCells(h *hdrhistogram.Histogram, n int, f func(*hdrhistogram.Histogram) []float64) []string {
	cells := make([]string, n)
	if h == nil || h.TotalCount() == 0 {
		return cells
	}
	for i, us := range f(h) {
		cells[i] = strconv.FormatFloat(us/1000, 'f', 3, 64)
	}
	return cells
}

// benchStatusCell writes the status counts in order: "200:990 503:10".
func benchStatusCell(status map[int]int64) string {
	var parts []string
	for _, code := range slices.Sorted(maps.Keys(status)) {
		parts = append(parts, fmt.Sprintf("%d:%d", code, status[code]))
	}
	return strings.Join(parts, " ")
}

// csvText escapes a text cell: what a terminal would act on goes through
// Escape (the CSV is printed on stdout), and a cell that a spreadsheet
// would read as a formula (OWASP's CSV injection advice) gets a leading
// apostrophe: one from a URL, a certificate or a server's message that
// starts with =, +, -, @, a tab, CR or LF, or their full-width forms,
// which some spreadsheets take for them. Number cells are written by
// strconv and never pass here.
func csvText(s string) string {
	s = Escape(s)
	if r, _ := utf8.DecodeRuneInString(s); s != "" && strings.ContainsRune("=+-@\t\r\n＝＋－＠", r) {
		return "'" + s
	}
	return s
}

func csvInt(n int64) string { return strconv.FormatInt(n, 10) }

// csvFloat writes a rate, a share or seconds with three decimals: enough
// for microseconds in seconds, and a fixed width for reading.
func csvFloat(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
