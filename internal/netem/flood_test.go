package netem

import (
	"testing"
	"time"
)

// TestPipeBoundsPacketsInFlight: a flood into a link with a long delay and
// no rate limit (so no byte queue either) holds at most maxInFlight
// packets; the rest are counted as dropped, so memory stays bounded
// whatever a sender does.
func TestPipeBoundsPacketsInFlight(t *testing.T) {
	p := &pipe{shape: newShaper(Config{RTT: time.Minute}, 0, 1), wake: make(chan struct{}, 1), closed: make(chan struct{})}
	now := time.Now()
	const extra = 100
	for i := range maxInFlight + extra {
		p.enqueue(now.Add(time.Duration(i)*time.Microsecond), make([]byte, 1500))
	}
	d := p.snapshot()
	if d.Queued != maxInFlight || d.Dropped != extra || d.Lost != 0 {
		t.Errorf("after %d packets: queued %d, dropped %d, lost %d; want %d, %d, 0",
			maxInFlight+extra, d.Queued, d.Dropped, d.Lost, maxInFlight, extra)
	}
	// The queue keeps the packets in arrival order.
	first, wait := p.next(now.Add(31 * time.Second))
	if first == nil || wait != 0 || first.seq != 1 {
		t.Fatalf("next after the delay = %v, %v; want the first packet", first, wait)
	}
}
