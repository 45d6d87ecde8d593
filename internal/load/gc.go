package load

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcHeadroom is how far the heap may grow past what survived the last
// collection before the next one, at the least. A full TLS handshake
// leaves about 42 KB of garbage (crypto/tls's messages, hashes, record
// buffers), and a handshake run keeps 3-4 MB alive: under the runtime's
// default (GOGC=100, the heap collected each time it doubles) that was
// a collection every 100 handshakes, 20-30 a second, each with its
// assists, its sweeping, its goroutine stacks shrunk and grown back and
// its pages returned to the kernel and faulted in again. With 16 MiB of
// headroom, about one in five. A keep-alive run leaves little garbage and
// keeps the default, and with it its small heap.
const gcHeadroom = 16 << 20

// maxGCPercent bounds GOGC for a small live heap: the runtime collects
// no heap smaller than 4 MiB × GOGC/100, 16 MiB at 400.
const maxGCPercent = 400

// tuneGC sets the garbage collector's GOGC after each collection so that
// the heap may grow by gcHeadroom or by what is alive, whichever is
// more, until stop is called: a small live heap grows by gcHeadroom, a
// large one (thousands of connections) doubles as by default. It does
// nothing when GOGC is set in the environment, which has the last word.
// Run tunes it while a run that opens a connection per request lasts.
// Calls may overlap; the setting in place before the first is restored
// when the last stops.
func tuneGC() (stop func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gcTuner.mu.Lock()
	defer gcTuner.mu.Unlock()
	gcTuner.holders++
	if gcTuner.holders == 1 {
		gcTuner.gen++
		gcTuner.before = debug.SetGCPercent(gcPercent(liveHeap()))
		armGCTuner(gcTuner.gen)
	}
	var once sync.Once
	return func() { once.Do(releaseGC) }
}

var gcTuner struct {
	mu      sync.Mutex
	holders int // tuneGC calls not yet stopped
	gen     int // counts the times tuning started, so that a stale hook stops
	before  int // GOGC before tuning started
}

func releaseGC() {
	gcTuner.mu.Lock()
	defer gcTuner.mu.Unlock()
	gcTuner.holders--
	if gcTuner.holders == 0 {
		debug.SetGCPercent(gcTuner.before)
	}
}

// gcSentinel is an object that becomes garbage at once: its cleanup runs
// after the next collection. It holds a pointer so that it is not one of
// the tiny allocations the runtime packs together.
type gcSentinel struct{ _ *int }

// armGCTuner sets GOGC again after the next collection, and so on while
// tuning generation gen lasts.
func armGCTuner(gen int) {
	runtime.AddCleanup(new(gcSentinel), func(gen int) {
		gcTuner.mu.Lock()
		defer gcTuner.mu.Unlock()
		if gcTuner.holders == 0 || gcTuner.gen != gen {
			return
		}
		debug.SetGCPercent(gcPercent(liveHeap()))
		armGCTuner(gen)
	}, gen)
}

// gcPercent is the GOGC that lets a heap with live bytes alive grow by
// gcHeadroom, at least 100 and at most maxGCPercent.
func gcPercent(live uint64) int {
	if live == 0 {
		return maxGCPercent
	}
	return int(min(max(100, gcHeadroom*100/live), maxGCPercent))
}

// liveHeap is the heap that survived the last collection, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
