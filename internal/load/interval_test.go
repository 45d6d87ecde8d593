package load

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// decodeInterval decodes one encoded histogram of an interval.
func decodeInterval(t *testing.T, enc string) *hdrhistogram.Histogram {
	t.Helper()
	h, err := DecodeHistogram(enc)
	if err != nil {
		t.Fatalf("decoding an interval's histogram: %v", err)
	}
	return h
}

// sameCounts reports whether two histograms hold the same count in every
// bucket.
func sameCounts(a, b *hdrhistogram.Histogram) bool {
	da, db := a.Distribution(), b.Distribution()
	if a.TotalCount() != b.TotalCount() || len(da) != len(db) {
		return false
	}
	for i := range da {
		if da[i] != db[i] {
			return false
		}
	}
	return true
}

// TestIntervalsExact sends events through the aggregator in a shuffled
// order, some of them seconds after their interval closed (as a worker
// whose batch waited behind a slow request hands them over): every
// interval holds exactly the requests that ended in it, its decoded
// histograms hold exactly their latencies, the counts add up to the
// run's and the intervals' histograms merge into the run's. With
// IntervalCountsOnly the counts are the same and no interval holds a
// histogram.
func TestIntervalsExact(t *testing.T) {
	for _, countsOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "histograms", true: "counts only"}[countsOnly], func(t *testing.T) {
			intervalsExact(t, countsOnly)
		})
	}
}

func intervalsExact(t *testing.T, countsOnly bool) {
	start := time.Unix(1700000000, 250e6)
	a := newAggregator(Config{IntervalCountsOnly: countsOnly}, start)
	rng := rand.New(rand.NewPCG(1, 2))
	const secs = 6
	var events []event
	want := make([]*hdrhistogram.Histogram, secs)
	wantReq, wantErr := make([]int64, secs), make([]int64, secs)
	for k := range want {
		want[k] = newLatency().Total
	}
	for i := range 3000 {
		end := rng.Int64N(int64(secs*time.Second-2*time.Second)) + 1
		if i%3 == 0 {
			end += int64(2 * time.Second) // the seconds 4 and 5 hold more
		}
		dur := rng.Int64N(int64(50*time.Millisecond)) + 1000
		k := (end - 1) / int64(time.Second)
		e := event{intended: -1, start: end - dur, end: end, wait: dur / 2, status: 200}
		if i%50 == 0 {
			e.err = errors.New("read: connection reset by peer")
			wantErr[k]++
		} else {
			record(want[k], dur)
			wantReq[k]++
		}
		events = append(events, e)
	}
	// Mostly in order of end, as the aggregator meets them, but one in
	// ten up to 3 s late.
	late := func(e event) int64 {
		if e.start%10 == 0 {
			return e.end + int64(3*time.Second)
		}
		return e.end
	}
	sortEvents(events, late)
	reopened := 0
	for i := range events {
		if intervalIndex(events[i].end) < int64(len(a.iv.closed)) {
			reopened++
		}
		a.add(&events[i])
	}
	if reopened < 100 {
		t.Errorf("%d events reached a closed interval; want the test to send at least 100 late", reopened)
	}
	a.finish(time.Duration(a.last))
	r := a.r
	if len(r.Intervals) != secs {
		t.Fatalf("%d intervals; want %d", len(r.Intervals), secs)
	}
	sumReq, sumErr := int64(0), int64(0)
	merged := newLatency().Total
	for k, iv := range r.Intervals {
		if iv.Requests != wantReq[k] || iv.Errors != wantErr[k] {
			t.Errorf("interval %d: %d requests, %d errors; want %d, %d", k, iv.Requests, iv.Errors, wantReq[k], wantErr[k])
		}
		if iv.Offset != time.Duration(k)*time.Second || !iv.Start.Equal(start.Add(iv.Offset)) {
			t.Errorf("interval %d: offset %v, start %v; want %ds, %v", k, iv.Offset, iv.Start, k, start.Add(iv.Offset))
		}
		sumReq += iv.Requests
		sumErr += iv.Errors
		if countsOnly {
			if iv.Latency != (IntervalLatency{}) {
				t.Errorf("interval %d: histograms kept with IntervalCountsOnly", k)
			}
			continue
		}
		h := decodeInterval(t, iv.Latency.Total)
		if !sameCounts(h, want[k]) {
			t.Errorf("interval %d: decoded total histogram (%d values, p50 %d) differs from the recorded one (%d values, p50 %d)",
				k, h.TotalCount(), h.ValueAtQuantile(50), want[k].TotalCount(), want[k].ValueAtQuantile(50))
		}
		if n := decodeInterval(t, iv.Latency.Waiting).TotalCount(); n != iv.Requests {
			t.Errorf("interval %d: waiting histogram holds %d values; want %d", k, n, iv.Requests)
		}
		if iv.Latency.Service != "" {
			t.Errorf("interval %d: a service histogram in the closed model", k)
		}
		merged.Merge(h)
	}
	if sumReq != r.Requests || sumErr != r.Errors {
		t.Errorf("intervals sum to %d requests, %d errors; the run has %d, %d", sumReq, sumErr, r.Requests, r.Errors)
	}
	if !countsOnly && !sameCounts(merged, r.Latency.Total) {
		t.Errorf("the intervals' total histograms merge into %d values; the run's has %d", merged.TotalCount(), r.Latency.Total.TotalCount())
	}
}

// sortEvents orders events by key, stably (an insertion sort: the tests
// hold a few thousand).
func sortEvents(ev []event, key func(event) int64) {
	for i := 1; i < len(ev); i++ {
		for j := i; j > 0 && key(ev[j]) < key(ev[j-1]); j-- {
			ev[j], ev[j-1] = ev[j-1], ev[j]
		}
	}
}

// TestIntervalsGapsAndPartial: a second in which nothing ended is an
// empty interval, the last interval of a run that ended inside it is
// partial, handshakes land in the interval they ended in, and the open
// model keeps the service histogram.
func TestIntervalsGapsAndPartial(t *testing.T) {
	a := newAggregator(Config{Rate: 10}, time.Unix(0, 0))
	a.add(&event{kind: handshakeEvent, connect: 1e5, tls: 1e6, version: 0x0304, end: 1e6})
	a.add(&event{intended: 0, start: 1e6, end: 5e8, status: 200})
	a.add(&event{intended: 2e9, start: 2e9, end: 2.2e9, status: 200})
	// The clock of an aggregator whose server stalled for an hour closes
	// the seconds that hold events, and makes no empty ones after them.
	a.iv.closeBefore(int64(time.Hour))
	if n := len(a.iv.closed); n != 3 || len(a.iv.slots) != 0 {
		t.Errorf("after an hour's stall: %d intervals closed, %d open; want 3, 0", n, len(a.iv.slots))
	}
	a.finish(2500 * time.Millisecond)
	ivs := a.r.Intervals
	if len(ivs) != 3 {
		t.Fatalf("%d intervals; want 3", len(ivs))
	}
	for k, want := range []struct {
		requests int64
		length   time.Duration
		partial  bool
	}{{1, time.Second, false}, {0, time.Second, false}, {1, 500 * time.Millisecond, true}} {
		iv := ivs[k]
		if iv.Requests != want.requests || iv.Length != want.length || iv.Partial != want.partial {
			t.Errorf("interval %d: %d requests, length %v, partial %v; want %d, %v, %v",
				k, iv.Requests, iv.Length, iv.Partial, want.requests, want.length, want.partial)
		}
		if n := decodeInterval(t, iv.Latency.Service).TotalCount(); n != want.requests {
			t.Errorf("interval %d: service histogram holds %d values; want %d", k, n, want.requests)
		}
	}
	if n := decodeInterval(t, ivs[0].Latency.TLS).TotalCount(); n != 1 {
		t.Errorf("interval 0: TLS histogram holds %d handshakes; want 1", n)
	}
	if n := decodeInterval(t, ivs[1].Latency.TLS).TotalCount(); n != 0 {
		t.Errorf("interval 1: TLS histogram holds %d handshakes; want 0", n)
	}
}

// intervalBytes is what an interval keeps in memory: its fields and its
// encodings.
func intervalBytes(iv Interval) int {
	n := 0
	for _, s := range iv.Latency.Phases() {
		n += len(s)
	}
	return n + int(unsafe.Sizeof(iv))
}

// TestIntervalMemoryBounded runs the aggregator over 120 seconds of
// 2,000 requests a second with latencies spread over three orders of
// magnitude (a worst case for the encodings: many distinct buckets), and
// --conn new's handshakes: the histograms held at once stay few, each
// interval keeps a bounded number of bytes, and the heap grows by about
// that per second.
func TestIntervalMemoryBounded(t *testing.T) {
	a := newAggregator(Config{}, time.Now())
	rng := rand.New(rand.NewPCG(3, 4))
	const secs, perSec = 120, 2000
	var heapAt20 uint64
	maxSlots := 0
	for s := range secs {
		for i := range perSec {
			end := int64(s)*1e9 + int64(i)*(1e9/perSec) + 1
			dur := int64(200e3 * (1 + rng.ExpFloat64()*rng.ExpFloat64()*20)) // 0.2 ms up to ~1 s
			a.add(&event{kind: handshakeEvent, connect: dur / 10, tls: dur / 3, version: 0x0304, end: end})
			a.add(&event{intended: -1, start: end - dur, end: end, wait: dur / 2, status: 200})
		}
		maxSlots = max(maxSlots, len(a.iv.slots)+len(a.iv.spare))
		if s == 20 {
			heapAt20 = heapInUse()
		}
	}
	heapAt120 := heapInUse()
	a.finish(time.Duration(a.last))
	if maxSlots > 2 {
		t.Errorf("%d intervals' histograms held at once; want at most 2", maxSlots)
	}
	total, largest := 0, 0
	for _, iv := range a.r.Intervals {
		n := intervalBytes(iv)
		total += n
		largest = max(largest, n)
	}
	mean := total / len(a.r.Intervals)
	t.Logf("%d intervals of 2,000 requests and handshakes: %d bytes each on average, %d at most; heap grew by %d bytes per interval",
		len(a.r.Intervals), mean, largest, int64(heapAt120-heapAt20)/100)
	if largest > 16<<10 {
		t.Errorf("an interval keeps %d bytes; want at most 16 KiB", largest)
	}
	if grew := int64(heapAt120) - int64(heapAt20); grew > 100*32<<10 {
		t.Errorf("the heap grew by %d bytes over 100 intervals; want at most 32 KiB per interval", grew)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestIntervalsInterrupted interrupts a run against the embedded server
// after 1.3 s: the intervals that closed are there, the last one is
// partial and marked, and the counts add up to the run's.
func TestIntervalsInterrupted(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	ctx, cancel := context.WithTimeout(context.Background(), 1300*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, Config{Targets: []Target{{URL: s.HTTPSURL + "/delay/20ms"}}, Conns: 4, Duration: time.Minute,
		TLS: clientTLS(t, s.CA.CertPEM)})
	if err != nil {
		t.Fatal(err)
	}
	ivs := res.Intervals
	if !res.Interrupted || len(ivs) != 2 {
		t.Fatalf("interrupted %v after %v with %d intervals; want true, 2", res.Interrupted, res.Elapsed, len(ivs))
	}
	if last := ivs[1]; !last.Partial || last.Length != res.Elapsed-time.Second || ivs[0].Partial || ivs[0].Length != time.Second {
		t.Errorf("intervals: %v (partial %v), %v (partial %v); want 1s, then the %v left, partial",
			ivs[0].Length, ivs[0].Partial, last.Length, last.Partial, res.Elapsed-time.Second)
	}
	if n := ivs[0].Requests + ivs[1].Requests; n != res.Requests || ivs[0].Requests == 0 || ivs[1].Requests == 0 {
		t.Errorf("intervals hold %d and %d requests; want both some, %d in all", ivs[0].Requests, ivs[1].Requests, res.Requests)
	}
}

// TestDecodeHistogram: an encoding of bench's histograms decodes to the
// same counts; one of another range or precision, or not an encoding at
// all, is refused.
func TestDecodeHistogram(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v < 5000; v += 7 {
		_ = h.RecordValue(v)
	}
	got, err := DecodeHistogram(EncodeHistogram(h))
	if err != nil || !sameCounts(got, h) {
		t.Errorf("DecodeHistogram(EncodeHistogram(h)) = %d values, %v; want h's %d", got.TotalCount(), err, h.TotalCount())
	}
	other := hdrhistogram.New(1, 1e12, 5)
	_ = other.RecordValue(1e11)
	enc, _ := other.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	for _, bad := range []string{string(enc), "", "HISTFAAAAB", "not base64 !"} {
		if _, err := DecodeHistogram(bad); err == nil {
			t.Errorf("DecodeHistogram(%.20q) = nil error; want it refused", bad)
		}
	}
}
