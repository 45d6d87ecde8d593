package netem

import (
	"io"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestShaperDelayAndRate(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		cfg   Config
		rate  int64
		sizes []int
		want  []time.Duration // leaving time after t0; -1: dropped at the queue
	}{
		{"delay only", Config{RTT: 40 * ms}, 0, []int{1500, 60, 1500}, []time.Duration{20 * ms, 20 * ms, 20 * ms}},
		// 1500 bytes at 12 Mbit/s take 1 ms on the wire.
		{"rate serialises", Config{RTT: 40 * ms}, 12_000_000, []int{1500, 1500, 1500}, []time.Duration{21 * ms, 22 * ms, 23 * ms}},
		{"queue full drops the tail", Config{Queue: 4500}, 12_000_000, []int{1500, 1500, 1500, 1500},
			[]time.Duration{1 * ms, 2 * ms, 3 * ms, -1}},
	}
	for _, tt := range tests {
		s := newShaper(tt.cfg, tt.rate, 1)
		for i, size := range tt.sizes {
			out, v := s.admit(t0, size)
			switch {
			case tt.want[i] < 0 && v != queueFull:
				t.Errorf("%s: packet %d: verdict %v; want queueFull", tt.name, i, v)
			case tt.want[i] >= 0 && (v != pass || out.Sub(t0) != tt.want[i]):
				t.Errorf("%s: packet %d leaves at +%v (verdict %v); want +%v", tt.name, i, out.Sub(t0), v, tt.want[i])
			}
		}
	}
}

func TestShaperDefaultQueueIsOneBDP(t *testing.T) {
	tests := []struct {
		cfg  Config
		want int64
	}{
		{Config{RTT: 100 * time.Millisecond, Bandwidth: 100_000_000}, 1_250_000},
		{Config{RTT: 10 * time.Millisecond, Bandwidth: 1_000_000}, minQueue},
		{Config{RTT: 10 * time.Millisecond, Bandwidth: 1_000_000, Queue: 5000}, 5000},
	}
	for _, tt := range tests {
		if got := newShaper(tt.cfg, tt.cfg.Bandwidth, 1).queue; got != tt.want {
			t.Errorf("queue for %v = %d; want %d", tt.cfg, got, tt.want)
		}
	}
}

func TestShaperLoss(t *testing.T) {
	const n, loss = 20000, 0.3
	s := newShaper(Config{Loss: loss}, 0, 7)
	dropped := 0
	for i := range n {
		if _, v := s.admit(t0.Add(time.Duration(i)), 100); v == lost {
			dropped++
		}
	}
	// Five standard deviations of a binomial count.
	if sd := math.Sqrt(n * loss * (1 - loss)); math.Abs(float64(dropped)-n*loss) > 5*sd {
		t.Errorf("lost %d of %d packets; want about %d", dropped, n, int(n*loss))
	}
}

func TestShaperJitter(t *testing.T) {
	ms := time.Millisecond
	for _, reorder := range []bool{false, true} {
		cfg := Config{RTT: 40 * ms, Jitter: 10 * ms, Reorder: reorder}
		s := newShaper(cfg, 0, 3)
		var last time.Time
		reordered := 0
		for i := range 2000 {
			now := t0.Add(time.Duration(i) * 100 * time.Microsecond)
			out, _ := s.admit(now, 100)
			d := out.Sub(now)
			if d < 15*ms || (d > 25*ms && !out.Equal(last)) {
				t.Fatalf("reorder=%v: packet %d delayed %v; want 20ms ± 5ms", reorder, i, d)
			}
			if out.Before(last) {
				reordered++
			}
			if out.After(last) {
				last = out
			}
		}
		if reorder != (reordered > 0) {
			t.Errorf("reorder=%v: %d packets overtaken; want some only with Reorder", reorder, reordered)
		}
	}
}

// chanDevice is one end of a link under test: Read takes packets from in,
// Write records what leaves the link with the (synctest) time.
type chanDevice struct {
	in  chan []byte
	mu  sync.Mutex
	out []arrival
}

type arrival struct {
	at   time.Time
	data string
}

func (d *chanDevice) Read(p []byte) (int, error) {
	b, ok := <-d.in
	if !ok {
		return 0, io.EOF
	}
	return copy(p, b), nil
}

func (d *chanDevice) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.out = append(d.out, arrival{time.Now(), string(p)})
	return len(p), nil
}

// TestPipeDeliversOnTime runs the forwarding goroutines on a fake clock:
// each packet must leave exactly when the shaper says, in order.
func TestPipeDeliversOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dev := &chanDevice{in: make(chan []byte)}
		// 1000 bytes at 8 Mbit/s take 1 ms on the wire.
		p := newPipe(dev, dev, newShaper(Config{RTT: 50 * time.Millisecond}, 8_000_000, 1))
		p.nap = time.Sleep // the fake clock advances only in Go's own sleeps
		p.start()
		start := time.Now()
		for _, s := range []string{"a", "b", "c"} {
			dev.in <- []byte(s + string(make([]byte, 999)))
		}
		time.Sleep(5 * time.Millisecond)
		dev.in <- []byte("d")
		time.Sleep(100 * time.Millisecond)
		close(dev.in)
		p.stop()
		want := []struct {
			after time.Duration
			first byte
		}{{26 * time.Millisecond, 'a'}, {27 * time.Millisecond, 'b'}, {28 * time.Millisecond, 'c'}, {30*time.Millisecond + 1000, 'd'}}
		if len(dev.out) != len(want) {
			t.Fatalf("%d packets left the link; want %d", len(dev.out), len(want))
		}
		for i, w := range want {
			if got := dev.out[i]; got.at.Sub(start) != w.after || got.data[0] != w.first {
				t.Errorf("packet %d: %q left at +%v; want %q at +%v", i, got.data[:1], got.at.Sub(start), w.first, w.after)
			}
		}
		if st := p.stats.snapshot(); st.Packets != 4 || st.Bytes != 3001 {
			t.Errorf("stats = %+v; want 4 packets, 3001 bytes", st)
		}
	})
}
