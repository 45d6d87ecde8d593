package netem

import (
	"container/heap"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// maxInFlight bounds the packets held by one direction of the link, so
// that memory stays bounded whatever the sender does. At 1500 bytes this
// is 24 MiB, more than a 1 Gbit/s link holds in 100 ms.
const maxInFlight = 16384

// maxPacket is the read buffer size: the largest IP packet.
const maxPacket = 65535

// Direction counts the packets of one direction of the link.
type Direction struct {
	Packets int64 // forwarded
	Bytes   int64 // forwarded, IP headers included
	Lost    int64 // dropped by the emulated random loss
	Dropped int64 // dropped at the tail of a full queue
	Queued  int64 // on the link now, waiting for their time to leave
}

// counters is the live, atomically updated form of Direction.
type counters struct {
	packets, bytes, lost, dropped atomic.Int64
}

func (c *counters) snapshot() Direction {
	return Direction{Packets: c.packets.Load(), Bytes: c.bytes.Load(), Lost: c.lost.Load(), Dropped: c.dropped.Load()}
}

// snapshot returns the counts so far and the packets on the link now.
func (p *pipe) snapshot() Direction {
	d := p.stats.snapshot()
	p.mu.Lock()
	d.Queued = int64(len(p.queue))
	p.mu.Unlock()
	return d
}

// packet is one IP packet on its way through the link.
type packet struct {
	data []byte
	out  time.Time // when it leaves the link
	seq  uint64    // arrival order, to break ties
}

// schedule is a time-ordered queue of packets (a min-heap on out, then seq).
type schedule []*packet

func (s schedule) Len() int { return len(s) }
func (s schedule) Less(i, j int) bool {
	if s[i].out.Equal(s[j].out) {
		return s[i].seq < s[j].seq
	}
	return s[i].out.Before(s[j].out)
}
func (s schedule) Swap(i, j int) { s[i], s[j] = s[j], s[i] }
func (s *schedule) Push(x any)   { *s = append(*s, x.(*packet)) }
func (s *schedule) Pop() any {
	old := *s
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*s = old[:len(old)-1]
	return p
}

// pipe forwards the packets read from src to dst, each after the delay,
// loss and rate its shaper decides. One goroutine reads, one writes.
type pipe struct {
	src   io.Reader
	dst   io.Writer
	shape *shaper
	stats counters

	// nap sleeps for short waits; the timerfd one is more precise than Go's
	// timers, which may fire up to a millisecond late.
	nap   func(time.Duration)
	timer *timerSleeper // behind nap, if the kernel has timerfd

	mu     sync.Mutex
	queue  schedule
	seq    uint64
	wake   chan struct{} // a packet was queued
	closed chan struct{}
	wg     sync.WaitGroup
}

func newPipe(src io.Reader, dst io.Writer, s *shaper) *pipe {
	p := &pipe{src: src, dst: dst, shape: s, nap: time.Sleep, wake: make(chan struct{}, 1), closed: make(chan struct{})}
	if ts, err := newTimerSleeper(); err == nil {
		p.nap, p.timer = ts.sleep, ts
	}
	return p
}

// start runs the reader and the writer until stop.
func (p *pipe) start() {
	p.wg.Add(2)
	go p.read()
	go p.write()
}

// stop ends the writer; the reader ends when src returns an error, which
// the owner causes by closing the device.
func (p *pipe) stop() {
	close(p.closed)
	p.wg.Wait()
	if p.timer != nil {
		p.timer.close()
	}
}

func (p *pipe) read() {
	defer p.wg.Done()
	buf := make([]byte, maxPacket)
	for {
		n, err := p.src.Read(buf)
		if err != nil {
			return
		}
		if n == 0 {
			continue
		}
		p.enqueue(time.Now(), append([]byte(nil), buf[:n]...))
	}
}

// enqueue passes a packet that arrived at now through the shaper.
func (p *pipe) enqueue(now time.Time, data []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) >= maxInFlight {
		p.stats.dropped.Add(1)
		return
	}
	out, v := p.shape.admit(now, len(data))
	switch v {
	case lost:
		p.stats.lost.Add(1)
		return
	case queueFull:
		p.stats.dropped.Add(1)
		return
	}
	p.seq++
	heap.Push(&p.queue, &packet{data: data, out: out, seq: p.seq})
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// next pops the first packet if it is due at now; otherwise it returns
// how long to wait for it (0: nothing queued).
func (p *pipe) next(now time.Time) (*packet, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) == 0 {
		return nil, 0
	}
	if d := p.queue[0].out.Sub(now); d > 0 {
		return nil, d
	}
	return heap.Pop(&p.queue).(*packet), 0
}

// napWindow is the longest wait that the writer sleeps through with nap
// rather than a timer. New packets that arrive meanwhile leave after the
// one it waits for, unless jitter may reorder them, and then only by less
// than this window.
const napWindow = 2 * time.Millisecond

func (p *pipe) write() {
	defer p.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-p.closed:
			return
		default:
		}
		pk, wait := p.next(time.Now())
		if pk != nil {
			if _, err := p.dst.Write(pk.data); err == nil {
				p.stats.packets.Add(1)
				p.stats.bytes.Add(int64(len(pk.data)))
			} else {
				p.stats.dropped.Add(1)
			}
			continue
		}
		if wait > 0 && wait <= napWindow {
			p.nap(wait)
			continue
		}
		var due <-chan time.Time
		if wait > 0 {
			// Wake early and nap the rest: Go's timers round to the
			// millisecond when the process is idle.
			timer.Reset(wait - napWindow/2)
			due = timer.C
		}
		select {
		case <-p.closed:
			return
		case <-p.wake:
		case <-due:
		}
	}
}
