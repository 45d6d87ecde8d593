package load

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"os"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: microseconds from 1 µs to one hour, 3 significant
// digits (0.1% resolution), about 180 KiB each whatever the request count.
const (
	histMin    = 1
	histMax    = int64(time.Hour / time.Microsecond)
	histDigits = 3
)

// maxDistinctErrors bounds the table of distinct error messages; further
// messages are counted under "other errors".
const maxDistinctErrors = 50

// Latency holds the per-phase latency histograms of a run, in microseconds.
type Latency struct {
	Connect *hdrhistogram.Histogram // TCP connect, per new connection
	TLS     *hdrhistogram.Histogram // TLS (or QUIC) handshake, per new connection
	Waiting *hdrhistogram.Histogram // request written to first response byte
	// Total is each request from its start, connection setup included,
	// to its last response byte; in the open model from its intended start.
	Total *hdrhistogram.Histogram
	// Service is, in the open model, each request from its actual send:
	// what a client that ignores coordinated omission would report.
	Service *hdrhistogram.Histogram
}

func newLatency() Latency {
	h := func() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }
	return Latency{Connect: h(), TLS: h(), Waiting: h(), Total: h(), Service: h()}
}

// TLSCount is how many handshakes used one combination of TLS parameters.
type TLSCount struct {
	Version uint16
	Cipher  uint16
	Curve   tls.CurveID
	Full    int64
	Resumed int64
}

// Result is the outcome of a run: counts, latency histograms, the TLS
// summary and CPU use. Failed requests are part of it, counted by message.
type Result struct {
	Config   Config
	Start    time.Time
	Elapsed  time.Duration // run start to last response; in the open model with a duration, at least that duration; interrupted, at least until the interrupt
	Requests int64         // completed requests, any status
	Errors   int64         // requests that failed without a response
	Status   map[int]int64
	// Bytes is the response body bytes read: after HTTP/1.1 chunked
	// decoding, HTTP/2 DATA payloads without padding, HTTP/3 DATA. Header
	// and framing bytes are left out on every protocol, so that the runs
	// of different protocols compare.
	Bytes int64
	// ErrorCounts maps each distinct error message to its count.
	ErrorCounts map[string]int64
	// ErrorSamples keeps the first error of each message in ErrorCounts,
	// so that a caller can inspect it with errors.Is and errors.As (to
	// suggest a fix) rather than match its text. It is not in the JSON.
	ErrorSamples map[string]error `json:"-"`
	Handshakes   int64            // successful TLS handshakes
	Resumed      int64            // of which resumed
	Connections  int64            // connections opened, TLS or not
	DialErrors   int64            // connections that failed to open
	TLS          []TLSCount
	KeyShares    KeyShareUse // the groups offered; the ones used are in TLS
	Latency      Latency
	// Open model: sends more than LateAfter behind schedule, the largest
	// lag, and tickets dropped because every worker was busy: the queue
	// was full, or -d ended while they waited in it.
	Late, Dropped int64
	MaxLag        time.Duration
	// Sent is, in the open model, the requests sent (started on their
	// schedule), completed or failed; FirstSend and LastSend are the
	// earliest and latest of their actual starts, for the send rate.
	Sent                int64
	FirstSend, LastSend time.Duration
	// ServerStreams is the lowest number of concurrent streams an HTTP/2
	// server allowed per connection (its SETTINGS, as httpslab's HTTP/2
	// client reads them), which may be 0; nil when not known.
	ServerStreams *int64
	Interrupted   bool // the run was stopped before its end
	// Intervals are the run's seconds, from its start (see Interval):
	// their counts add up to Requests and Errors, their histograms to
	// Latency's.
	Intervals []Interval
	// Client names the HTTP client that ran the requests: ClientH1,
	// ClientH2, ClientNetH2 or ClientQUICH3.
	Client string
	CPU    CPU
	// Run says which run this is and where it ran: the host, the worker,
	// the clock's offset and the configuration's hash, for a merge.
	Run RunInfo
	// Merged is set on a result httpslab merge combined from several.
	Merged *Merged
}

// LateAfter is how far behind its intended start a send counts as late.
const LateAfter = time.Millisecond

type aggregator struct {
	r      *Result
	tlsIdx map[TLSCount]int
	last   int64
	log    *requestLog // nil without Config.RequestLog
	iv     *intervals
}

func newAggregator(cfg Config, start time.Time) *aggregator {
	return &aggregator{
		r: &Result{Config: cfg, Start: start, Status: map[int]int64{}, ErrorCounts: map[string]int64{},
			ErrorSamples: map[string]error{}, Latency: newLatency()},
		tlsIdx: map[TLSCount]int{},
		iv:     newIntervals(start, cfg.Rate > 0, !cfg.IntervalCountsOnly),
	}
}

// finish closes the run's intervals once its elapsed time is known.
func (a *aggregator) finish(elapsed time.Duration) {
	a.r.Intervals = a.iv.finish(elapsed)
}

// run consumes batches until in is closed. It is the only goroutine that
// touches the statistics.
func (a *aggregator) run(in <-chan *batch, progress func(Progress)) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case b, ok := <-in:
			if !ok {
				return
			}
			for i := range b.events {
				a.add(&b.events[i])
			}
			clear(b.events)
			b.events = b.events[:0]
			batchPool.Put(b)
		case <-tick.C:
			a.iv.closeBefore(int64(time.Since(a.r.Start)))
			if progress != nil {
				progress(Progress{Elapsed: time.Since(a.r.Start), Requests: a.r.Requests,
					Errors: a.r.Errors, Handshakes: a.r.Handshakes})
			}
		}
	}
}

func (a *aggregator) add(e *event) {
	if e.end > a.last {
		a.last = e.end
		a.iv.closeUpTo((e.end - int64(intervalCloseLag)) / int64(IntervalLength))
	}
	if e.kind == handshakeEvent {
		a.addHandshake(e)
		return
	}
	if e.intended >= 0 {
		a.addSend(e)
	}
	if a.log != nil {
		a.log.add(e)
	}
	s := a.iv.slot(e.end)
	if e.err != nil {
		a.r.Errors++
		s.errors++
		a.addError(e.err)
		return
	}
	a.r.Requests++
	s.requests++
	a.r.Status[e.status]++
	a.r.Bytes += e.bytes
	a.r.Latency.addRequest(e)
	s.addRequest(e)
}

// requestTimes returns a completed request's total latency and, in the
// open model, its service time (-1 in the closed model): in the open
// model the total counts from the intended start.
func requestTimes(e *event) (total, service int64) {
	if e.intended >= 0 {
		return e.end - e.intended, e.end - e.start
	}
	return e.end - e.start, -1
}

// addRequest records a completed request's latencies.
func (l *Latency) addRequest(e *event) {
	total, service := requestTimes(e)
	record(l.Waiting, e.wait)
	record(l.Total, total)
	if service >= 0 {
		record(l.Service, service)
	}
}

// addHandshake records a connection's set-up: its TCP connect, when
// there was one, and its TLS handshake, when there was one.
func (l *Latency) addHandshake(e *event) {
	if e.connect > 0 {
		record(l.Connect, e.connect)
	}
	if e.version != 0 {
		record(l.TLS, e.tls)
	}
}

// addSend counts a request of the open model that was sent, whether it
// then completed or failed: the send rate and the schedule's lag are the
// client's, whatever the server made of the requests.
func (a *aggregator) addSend(e *event) {
	a.r.Sent++
	lag := time.Duration(e.start - e.intended)
	if lag > LateAfter {
		a.r.Late++
	}
	a.r.MaxLag = max(a.r.MaxLag, lag)
	start := time.Duration(e.start)
	if a.r.Sent == 1 || start < a.r.FirstSend {
		a.r.FirstSend = start
	}
	a.r.LastSend = max(a.r.LastSend, start)
}

func (a *aggregator) addHandshake(e *event) {
	if e.err != nil {
		// The requests that needed this connection report the error.
		a.r.DialErrors++
		return
	}
	a.r.Connections++
	a.r.Latency.addHandshake(e)
	a.iv.slot(e.end).addHandshake(e)
	if e.version == 0 {
		return
	}
	a.r.Handshakes++
	if e.retried {
		a.r.KeyShares.HelloRetries++
	}
	key := TLSCount{Version: e.version, Cipher: e.cipher, Curve: e.curve}
	i, ok := a.tlsIdx[key]
	if !ok {
		i = len(a.r.TLS)
		a.tlsIdx[key] = i
		a.r.TLS = append(a.r.TLS, key)
	}
	if e.resumed {
		a.r.Resumed++
		a.r.TLS[i].Resumed++
	} else {
		a.r.TLS[i].Full++
	}
}

// record adds a duration in nanoseconds to h in microseconds, clamped to
// the histogram's range so that no value is silently lost.
func record(h *hdrhistogram.Histogram, ns int64) {
	us := min(max(ns/1000, histMin), histMax)
	_ = h.RecordValue(us)
}

func (a *aggregator) addError(err error) {
	msg := errorMessage(err)
	if _, ok := a.r.ErrorCounts[msg]; !ok && len(a.r.ErrorCounts) >= maxDistinctErrors {
		msg = "other errors"
	}
	if _, ok := a.r.ErrorSamples[msg]; !ok {
		a.r.ErrorSamples[msg] = err
	}
	a.r.ErrorCounts[msg]++
}

// errorMessage names an error without the parts that differ between
// connections (local ports), so that equal failures count together.
func errorMessage(err error) string {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Op + ": " + op.Err.Error()
	}
	return err.Error()
}
