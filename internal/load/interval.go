package load

// A run's per-second intervals. Besides the whole-run histograms, the
// aggregator keeps the counts and latency histograms of each second of the
// run, aligned to its start, so that a report can draw the run over time
// and merge can add workers up second by second. An interval holds the
// requests that ended in it: interval k is (k s, (k+1) s] after the start.
//
// An open interval records the latencies every request has (waiting,
// total, service) into dense histograms of 180 KiB, as the whole run's,
// at 30 ns a value; and the connections' set-up (connect, TLS) into
// HdrHistogram's packed histograms, whose memory follows the buckets in
// use, as a value there costs up to 250 ns. At most two intervals are
// open at once (intervalCloseLag is under a second). An interval is
// encoded when it closes, each histogram in HdrHistogram's V2 compressed
// encoding (base64, as a line of an HdrHistogram interval log holds it),
// and its histograms are reset for a later interval: a run's memory grows
// by the encodings, a few KiB per second.
//
// Subtleness ahead: workers hand their events over in batches, so an
// event can reach the aggregator after its interval closed (a worker
// whose requests take seconds holds its earlier events that long). Such
// an interval is reopened: its encodings are decoded into histograms
// again, take the late events, and are encoded anew at the next tick. Every
// request is counted in the interval it ended in, whatever the batching.

import (
	"fmt"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// IntervalLength is the length of one interval of a run.
const IntervalLength = time.Second

// intervalCloseLag is how long after its end an interval stays open for
// the events still on their way in workers' batches (batchAge and the
// time a batch waits in the channel). Later ones reopen it.
const intervalCloseLag = 500 * time.Millisecond

// maxReopened bounds the intervals reopened at once for late events: past
// it the oldest is encoded again at once, so that a run whose events
// arrive late by many different seconds still holds few histograms.
const maxReopened = 4

// Interval is one second of a run: what ended in it.
type Interval struct {
	Offset time.Duration // from the run's start: a whole number of seconds
	Start  time.Time     // the wall-clock time the interval began: the run's start plus Offset
	// Length is IntervalLength, or less for the last interval of a run
	// that ended inside it (an interrupted run, the requests in flight
	// at the end of -d): then Partial is set.
	Length   time.Duration
	Partial  bool
	Requests int64 // completed requests, any status
	Errors   int64 // requests that failed without a response
	Latency  IntervalLatency
}

// IntervalLatency holds an interval's latency histograms, as Latency's
// (microseconds, the same range and precision, so they merge with each
// other and with the whole run's), each in HdrHistogram's V2 compressed
// encoding in base64. A phase with no value in the interval holds an
// empty histogram's encoding; Service is "" in the closed model.
type IntervalLatency struct {
	Connect, TLS, Waiting, Total, Service string
}

// Phases returns the interval's encoded histograms by the phase names of
// bench's report (connect, tls, waiting, total, service), leaving out
// Service when it is "".
func (l IntervalLatency) Phases() map[string]string {
	m := map[string]string{"connect": l.Connect, "tls": l.TLS, "waiting": l.Waiting, "total": l.Total}
	if l.Service != "" {
		m["service"] = l.Service
	}
	return m
}

// NewHistogram returns an empty latency histogram of bench's range and
// precision: microseconds from 1 µs to one hour, 3 significant digits.
func NewHistogram() *hdrhistogram.Histogram { return newDense() }

// DecodeHistogram decodes one histogram of an interval (or of bench's
// JSON) from HdrHistogram's base64 V2 encoding, as MergeEncoded does.
func DecodeHistogram(enc string) (*hdrhistogram.Histogram, error) {
	h := newDense()
	dropped, err := MergeEncoded(h, enc)
	if err == nil && dropped != 0 {
		err = fmt.Errorf("decoding histogram: %d values past its counts' range", dropped)
	}
	return h, err
}

// MergeEncoded adds the histogram enc encodes (HdrHistogram's base64 V2
// encoding) to h, and returns the count of values h could not hold (its
// total past int64). It refuses a histogram of another range or
// precision than NewHistogram's: such an encoding was not written by
// bench, and merges with bench's inexactly. The encoding is read into a
// packed histogram, whose memory follows the buckets it holds, so that a
// forged range does not allocate before it is refused.
func MergeEncoded(h *hdrhistogram.Histogram, enc string) (dropped int64, err error) {
	p, err := hdrhistogram.DecodePacked([]byte(enc))
	if err != nil {
		return 0, fmt.Errorf("decoding histogram: %w", err)
	}
	if p.LowestTrackableValue() != histMin || p.HighestTrackableValue() != histMax || p.SignificantFigures() != histDigits {
		return 0, fmt.Errorf("decoding histogram: range %d to %d with %d digits; bench's is %d to %d µs with %d",
			p.LowestTrackableValue(), p.HighestTrackableValue(), p.SignificantFigures(), histMin, histMax, histDigits)
	}
	return p.MergeInto(h), nil
}

// EncodeHistogram returns h in HdrHistogram's V2 compressed encoding, in
// base64, as bench's JSON holds histograms.
func EncodeHistogram(h *hdrhistogram.Histogram) string { return encodeV2(h) }

// intervalSlot is an open interval: its counts and histograms, in
// microseconds as Latency's (service nil in the closed model).
type intervalSlot struct {
	index                   int64
	requests, errors        int64
	waiting, total, service *hdrhistogram.Histogram
	connect, tls            *hdrhistogram.PackedHistogram
}

// intervalHist is a dense or a packed histogram, as a slot uses it.
type intervalHist interface {
	TotalCount() int64
	Reset()
	EncodeV2() ([]byte, error)
}

func newDense() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histDigits) }
func newPacked() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(histMin, histMax, histDigits)
}

// addRequest records a completed request's latencies, as Latency's,
// when the slot keeps them.
func (s *intervalSlot) addRequest(e *event) {
	if s.total == nil {
		return
	}
	total, service := requestTimes(e)
	record(s.waiting, e.wait)
	record(s.total, total)
	if service >= 0 && s.service != nil {
		record(s.service, service)
	}
}

// addHandshake records a connection's set-up, as Latency's, when the
// slot keeps it.
func (s *intervalSlot) addHandshake(e *event) {
	if s.connect == nil {
		return
	}
	if e.connect > 0 {
		recordPacked(s.connect, e.connect)
	}
	if e.version != 0 {
		recordPacked(s.tls, e.tls)
	}
}

// recordPacked is record for a packed histogram.
func recordPacked(h *hdrhistogram.PackedHistogram, ns int64) {
	_ = h.RecordValue(min(max(ns/1000, histMin), histMax))
}

// phases names the slot's histograms as IntervalLatency.Phases names
// the encodings; none when it keeps no histograms.
func (s *intervalSlot) phases() map[string]intervalHist {
	if s.total == nil {
		return nil
	}
	m := map[string]intervalHist{"connect": s.connect, "tls": s.tls, "waiting": s.waiting, "total": s.total}
	if s.service != nil {
		m["service"] = s.service
	}
	return m
}

// intervals is the aggregator's record of a run's intervals.
type intervals struct {
	start    time.Time // the run's start, wall clock
	open     bool      // the open model: Service is kept
	latency  bool      // the histograms are kept (see Config.IntervalCountsOnly)
	closed   []Interval
	slots    []*intervalSlot // open intervals, the reopened ones among them
	reopened int             // how many of slots are reopened
	spare    []*intervalSlot // closed slots, their histograms reset for reuse
	empty    IntervalLatency // the encodings of an interval with no value
}

func newIntervals(start time.Time, openModel, latency bool) *intervals {
	iv := &intervals{start: start.Round(0), open: openModel, latency: latency}
	if !latency {
		return iv
	}
	empty := encodeV2(newPacked())
	iv.empty = IntervalLatency{Connect: empty, TLS: empty, Waiting: empty, Total: empty}
	if openModel {
		iv.empty.Service = empty
	}
	return iv
}

func (iv *intervals) newSlot() *intervalSlot {
	if n := len(iv.spare); n > 0 {
		s := iv.spare[n-1]
		iv.spare = iv.spare[:n-1]
		return s
	}
	s := &intervalSlot{}
	if !iv.latency {
		return s
	}
	s.connect, s.tls, s.waiting, s.total = newPacked(), newPacked(), newDense(), newDense()
	if iv.open {
		s.service = newDense()
	}
	return s
}

// intervalIndex is the interval an event that ended at end (ns since the
// start) belongs to.
func intervalIndex(end int64) int64 {
	if end <= 0 {
		return 0
	}
	return (end - 1) / int64(IntervalLength)
}

// slot returns the open slot of the interval that an event ending at end
// belongs to, opening or reopening it.
func (iv *intervals) slot(end int64) *intervalSlot {
	k := intervalIndex(end)
	for _, s := range iv.slots {
		if s.index == k {
			return s
		}
	}
	s := iv.newSlot()
	s.index = k
	if k < int64(len(iv.closed)) {
		iv.reopen(s)
	}
	iv.slots = append(iv.slots, s)
	return s
}

// reopen fills s with what its closed interval holds, for late events.
func (iv *intervals) reopen(s *intervalSlot) {
	if iv.reopened >= maxReopened {
		iv.closeReopened()
	}
	iv.reopened++
	c := &iv.closed[s.index]
	s.requests, s.errors = c.Requests, c.Errors
	encoded := c.Latency.Phases()
	for name, h := range s.phases() {
		switch h := h.(type) {
		case *hdrhistogram.Histogram:
			if dec, err := hdrhistogram.Decode([]byte(encoded[name])); err == nil {
				h.Merge(dec)
			}
		case *hdrhistogram.PackedHistogram:
			if dec, err := hdrhistogram.DecodePacked([]byte(encoded[name])); err == nil {
				h.Merge(dec)
			}
		}
	}
}

// closeBefore closes every interval that ended intervalCloseLag or more
// before now (ns since the start) and holds something, and every
// reopened one: the clock closes the seconds before a stall. The empty
// seconds after the last event are left to finish, which knows where the
// run ended.
func (iv *intervals) closeBefore(now int64) {
	iv.closeReopened()
	last := int64(-1)
	for _, s := range iv.slots {
		last = max(last, s.index)
	}
	iv.closeUpTo(min((now-int64(intervalCloseLag))/int64(IntervalLength), last+1))
}

// closeUpTo closes the intervals before index n, with empty ones for
// the seconds in which nothing ended.
func (iv *intervals) closeUpTo(n int64) {
	for k := int64(len(iv.closed)); k < n; k++ {
		iv.closed = append(iv.closed, iv.emptyInterval(k))
		for i, s := range iv.slots {
			if s.index == k {
				iv.closeSlot(i)
				break
			}
		}
	}
}

// closeReopened encodes again the intervals reopened for late events.
func (iv *intervals) closeReopened() {
	for i := len(iv.slots) - 1; i >= 0 && iv.reopened > 0; i-- {
		if iv.slots[i].index < int64(len(iv.closed)) {
			iv.closeSlot(i)
			iv.reopened--
		}
	}
}

// closeSlot encodes slots[i] into its closed interval and frees it.
func (iv *intervals) closeSlot(i int) {
	s := iv.slots[i]
	c := &iv.closed[s.index]
	c.Requests, c.Errors, c.Latency = s.requests, s.errors, iv.encode(s)
	iv.slots = append(iv.slots[:i], iv.slots[i+1:]...)
	s.requests, s.errors = 0, 0
	for _, h := range s.phases() {
		h.Reset()
	}
	iv.spare = append(iv.spare, s)
}

func (iv *intervals) emptyInterval(k int64) Interval {
	off := time.Duration(k) * IntervalLength
	return Interval{Offset: off, Start: iv.start.Add(off), Length: IntervalLength, Latency: iv.empty}
}

// finish closes every interval of a run that lasted elapsed: the last
// one is partial when the run ended inside it. Intervals closed by the
// clock after the run's end, with nothing in them, are left out.
func (iv *intervals) finish(elapsed time.Duration) []Interval {
	n := int64((elapsed + IntervalLength - 1) / IntervalLength)
	for _, s := range iv.slots {
		n = max(n, s.index+1)
	}
	iv.closeReopened()
	iv.closeUpTo(n)
	out := iv.closed
	for len(out) > 0 {
		last := &out[len(out)-1]
		if last.Offset < elapsed || last.Requests+last.Errors > 0 {
			break
		}
		out = out[:len(out)-1]
	}
	if len(out) > 0 {
		last := &out[len(out)-1]
		if rest := elapsed - last.Offset; rest > 0 && rest < IntervalLength {
			last.Length, last.Partial = rest, true
		}
	}
	iv.slots, iv.spare = nil, nil
	return out
}

// encode returns the slot's histograms in their V2 encodings. An empty
// histogram takes the encoding made once at the start: each encoding
// allocates a compressor of several hundred KiB.
func (iv *intervals) encode(s *intervalSlot) IntervalLatency {
	if !iv.latency {
		return IntervalLatency{}
	}
	e := iv.empty
	l := IntervalLatency{Connect: encodeOr(s.connect, e.Connect), TLS: encodeOr(s.tls, e.TLS),
		Waiting: encodeOr(s.waiting, e.Waiting), Total: encodeOr(s.total, e.Total)}
	if s.service != nil {
		l.Service = encodeOr(s.service, e.Service)
	}
	return l
}

// encodeOr is h's encoding, or empty when h holds no value.
func encodeOr(h intervalHist, empty string) string {
	if h.TotalCount() == 0 {
		return empty
	}
	return encodeV2(h)
}

// encodeV2 is h's V2 compressed encoding in base64 (dense and packed
// histograms write the same bytes for the same counts). It fails only
// for counts the encoding cannot hold, which a histogram of newLatency's
// range cannot reach.
func encodeV2(h intervalHist) string {
	enc, err := h.EncodeV2()
	if err != nil {
		return ""
	}
	return string(enc)
}
