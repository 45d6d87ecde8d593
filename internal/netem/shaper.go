package netem

import (
	"math/rand/v2"
	"time"
)

// verdict is what the shaper decides for one packet.
type verdict int

const (
	pass      verdict = iota // forward at the returned time
	lost                     // dropped by random loss
	queueFull                // dropped at the tail of a full rate-limit queue
)

// minQueue is the smallest rate-limit queue: enough for a burst of about
// 44 full-size packets, so a slow link still takes a TCP initial window.
const minQueue = 64 << 10

// shaper decides, for each packet of one direction, whether it is dropped
// and when it leaves the link. It is pure bookkeeping on the times it is
// given, with no goroutines or clocks of its own, so that tests can drive
// it with chosen times.
type shaper struct {
	delay   time.Duration // one-way delay, RTT/2
	jitter  time.Duration // total width of the uniform jitter, centred on delay
	loss    float64
	rate    int64 // bits per second; 0 means unlimited
	queue   int64 // bytes that may wait for the transmitter
	reorder bool
	rnd     *rand.Rand

	txFree  time.Time // when the transmitter is done with the last accepted packet
	lastOut time.Time // when the last accepted packet leaves, to keep the order
}

// newShaper builds the shaper of one direction with the given rate.
func newShaper(c Config, rate int64, seed uint64) *shaper {
	s := &shaper{
		delay: c.RTT / 2, jitter: c.Jitter, loss: c.Loss, rate: rate, reorder: c.Reorder,
		rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}
	s.queue = c.Queue
	if s.queue == 0 && rate > 0 {
		// One bandwidth-delay product lets one TCP flow fill the link.
		s.queue = max(int64(float64(rate)/8*c.RTT.Seconds()), minQueue)
	}
	return s
}

// admit decides the fate of a packet of size bytes that entered the link
// at now, and when it leaves if it passes.
func (s *shaper) admit(now time.Time, size int) (time.Time, verdict) {
	if s.loss > 0 && s.rnd.Float64() < s.loss {
		return time.Time{}, lost
	}
	depart := now
	if s.rate > 0 {
		start := now
		if s.txFree.After(start) {
			start = s.txFree
		}
		waiting := int64(start.Sub(now).Seconds() * float64(s.rate) / 8)
		if waiting+int64(size) > s.queue {
			return time.Time{}, queueFull
		}
		s.txFree = start.Add(s.serialisation(size))
		depart = s.txFree
	}
	out := depart.Add(s.delay)
	if s.jitter > 0 {
		// Uniform in [-jitter/2, +jitter/2]. Config.Validate keeps Jitter
		// at most the RTT, so the offset never exceeds the one-way delay
		// of RTT/2 and no packet leaves before it departs.
		out = out.Add(time.Duration(s.rnd.Int64N(int64(s.jitter)+1)) - s.jitter/2)
	}
	if !s.reorder && out.Before(s.lastOut) {
		out = s.lastOut
	}
	if out.After(s.lastOut) {
		s.lastOut = out
	}
	return out, pass
}

// serialisation is the time the transmitter needs for size bytes.
func (s *shaper) serialisation(size int) time.Duration {
	return time.Duration(float64(size) * 8 / float64(s.rate) * float64(time.Second))
}
