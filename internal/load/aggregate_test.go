package load

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
)

// TestAggregation sends events from several recorders through the
// aggregator goroutine and checks every count and histogram.
func TestAggregation(t *testing.T) {
	a := newAggregator(Config{}, time.Now())
	in := make(chan *batch, 4)
	done := make(chan struct{})
	go func() { a.run(in, nil); close(done) }()
	var wg sync.WaitGroup
	const workers, each = 8, 1000
	for w := range workers {
		wg.Go(func() {
			rec := newRecorder(in)
			defer rec.flush()
			rec.add(event{kind: handshakeEvent, connect: 100e3, tls: 1e6, end: 1, version: tls.VersionTLS13,
				cipher: tls.TLS_AES_128_GCM_SHA256, curve: tls.X25519, resumed: w%2 == 1})
			for i := range each {
				// Totals 1..1000 ms, the same in every worker.
				rec.add(event{intended: -1, start: 0, end: int64(i+1) * 1e6, wait: 5e5, status: 200 + w%2, bytes: 10})
			}
			rec.add(event{intended: -1, err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}})
		})
	}
	wg.Wait()
	close(in)
	<-done
	r := a.r
	if r.Requests != workers*each || r.Errors != workers || r.Bytes != workers*each*10 {
		t.Errorf("requests, errors, bytes = %d, %d, %d; want %d, %d, %d", r.Requests, r.Errors, r.Bytes, workers*each, workers, workers*each*10)
	}
	if diff := cmp.Diff(map[int]int64{200: 4000, 201: 4000}, r.Status); diff != "" {
		t.Errorf("status counts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int64{"read: read: connection reset by peer": workers}, r.ErrorCounts); diff != "" {
		t.Errorf("error counts (-want +got):\n%s", diff)
	}
	wantTLS := []TLSCount{{Version: tls.VersionTLS13, Cipher: tls.TLS_AES_128_GCM_SHA256, Curve: tls.X25519, Full: 4, Resumed: 4}}
	if diff := cmp.Diff(wantTLS, r.TLS); diff != "" {
		t.Errorf("TLS summary (-want +got):\n%s", diff)
	}
	total := r.Latency.Total
	if total.TotalCount() != workers*each {
		t.Errorf("total histogram count = %d; want %d", total.TotalCount(), workers*each)
	}
	for _, q := range []struct {
		p    float64
		want int64 // µs
	}{{50, 500e3}, {90, 900e3}, {99, 990e3}, {100, 1000e3}} {
		got := total.ValueAtQuantile(q.p)
		if !total.ValuesAreEquivalent(got, q.want) {
			t.Errorf("p%g = %d µs; want %d µs (within HDR resolution)", q.p, got, q.want)
		}
	}
	if got := r.Latency.TLS.TotalCount(); got != workers {
		t.Errorf("TLS histogram count = %d; want %d", got, workers)
	}
}

// encodeHist is h in HdrHistogram's compressed V2 encoding, as bench's
// JSON carries it.
func encodeHist(t *testing.T, h *hdrhistogram.Histogram) []byte {
	t.Helper()
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// TestHistogramMergeable checks that the encoding of a histogram bench's
// JSON carries decodes and merges into the same distribution.
func TestHistogramMergeable(t *testing.T) {
	a, b := newAggregator(Config{}, time.Now()), newAggregator(Config{}, time.Now())
	for i := int64(1); i <= 500; i++ {
		a.add(&event{intended: -1, end: i * 1e6, status: 200})
		b.add(&event{intended: -1, end: (i + 500) * 1e6, status: 200})
	}
	ha, err := hdrhistogram.Decode(encodeHist(t, a.r.Latency.Total))
	if err != nil {
		t.Fatalf("decoding histogram: %v", err)
	}
	hb, err := hdrhistogram.Decode(encodeHist(t, b.r.Latency.Total))
	if err != nil {
		t.Fatalf("decoding histogram: %v", err)
	}
	ha.Merge(hb)
	if ha.TotalCount() != 1000 || !ha.ValuesAreEquivalent(ha.ValueAtQuantile(50), 500e3) {
		t.Errorf("merged count %d, p50 %d µs; want 1000, 500000", ha.TotalCount(), ha.ValueAtQuantile(50))
	}
}

// TestOpenModelLatency checks that, in the open model, total latency runs
// from the intended start and late sends are counted.
func TestOpenModelLatency(t *testing.T) {
	a := newAggregator(Config{Rate: 100}, time.Now())
	a.add(&event{intended: 0, start: 0, end: 2e6, status: 200})              // on time, 2 ms
	a.add(&event{intended: 10e6, start: 60e6, end: 62e6, status: 200})       // 50 ms late
	a.add(&event{intended: 20e6, start: 20e6 + 5e5, end: 22e6, status: 200}) // 0.5 ms: not late
	r := a.r
	if r.Late != 1 || r.MaxLag != 50*time.Millisecond {
		t.Errorf("late, max lag = %d, %v; want 1, 50ms", r.Late, r.MaxLag)
	}
	if got := r.Latency.Total.Max(); !r.Latency.Total.ValuesAreEquivalent(got, 52e3) {
		t.Errorf("corrected max = %d µs; want 52000", got)
	}
	if got := r.Latency.Service.Max(); !r.Latency.Service.ValuesAreEquivalent(got, 2e3) {
		t.Errorf("service max = %d µs; want 2000", got)
	}
}

func TestDistinctErrorsBounded(t *testing.T) {
	a := newAggregator(Config{}, time.Now())
	first := fmt.Errorf("error %d", 0)
	a.add(&event{intended: -1, err: first})
	for i := 1; i < 2*maxDistinctErrors; i++ {
		a.add(&event{intended: -1, err: fmt.Errorf("error %d", i)})
	}
	a.add(&event{intended: -1, err: errors.New("error 0")})
	if n := len(a.r.ErrorSamples); n != len(a.r.ErrorCounts) {
		t.Errorf("%d error samples for %d messages; want one each", n, len(a.r.ErrorCounts))
	}
	if got := a.r.ErrorSamples["error 0"]; got != first {
		t.Errorf("sample of error 0 = %p (%v); want the first one, %p", got, got, first)
	}
	if got, want := fmt.Sprint(a.r.ErrorSamples["other errors"]), fmt.Sprintf("error %d", maxDistinctErrors); got != want {
		t.Errorf("sample of other errors = %q; want %q, the first one folded in", got, want)
	}
	if n := len(a.r.ErrorCounts); n != maxDistinctErrors+1 {
		t.Errorf("%d distinct messages kept; want %d", n, maxDistinctErrors+1)
	}
	if got := a.r.ErrorCounts["other errors"]; got != maxDistinctErrors {
		t.Errorf("other errors = %d; want %d", got, maxDistinctErrors)
	}
	if got := a.r.ErrorCounts["error 0"]; got != 2 {
		t.Errorf("error 0 counted %d times; want 2", got)
	}
}

// BenchmarkAggregation measures the path from 50 workers to the single
// aggregator, one event per channel send against batches.
func BenchmarkAggregation(b *testing.B) {
	for _, size := range []int{1, 16, batchSize} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			a := newAggregator(Config{}, time.Now())
			in := make(chan *batch, 200)
			done := make(chan struct{})
			go func() { a.run(in, nil); close(done) }()
			const workers = 50
			per := b.N/workers + 1
			b.ResetTimer()
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					rec := newRecorder(in)
					rec.size = size
					for i := range per {
						rec.add(event{intended: -1, end: int64(i) * 1000, status: 200})
					}
					rec.flush()
				})
			}
			wg.Wait()
			close(in)
			<-done
		})
	}
}
