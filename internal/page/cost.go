package page

import (
	"sync"
	"time"
)

// processor models a browser's own work on each response
// (Config.ResponseCost, ResponseCostPerMB and ResponseDelay): the events
// a response raises pass through its network service, its browser
// process and the page's renderer, each a thread that handles one at a
// time. On a machine of few cores their CPU, not the network, paces a
// page of many small resources (the cost), or of many bytes (the cost
// per MB: the body is read, decrypted, copied from process to process
// and decoded or compiled), and each hand-off from one process to the
// next waits for a core (the delay), which over HTTP/1.1 lies on every
// connection's path. The model: a response is ready delay after it
// arrived, and the ready responses are processed one at a time, in
// order, for cost plus perMB for each MB (10^6 bytes) of its body.
type processor struct {
	cost, perMB, delay time.Duration
	mu                 sync.Mutex
	free               time.Time // when the response last queued will have been processed
}

// take queues a response of size bytes of body that arrived at t and
// returns when it will have been processed.
func (p *processor) take(t time.Time, size int64) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	t = t.Add(p.delay)
	if p.free.After(t) {
		t = p.free
	}
	p.free = t.Add(p.cost + time.Duration(float64(p.perMB)*float64(size)/1e6))
	return p.free
}

// process holds r, whose response arrived at r.done, until the modelled
// browser has processed it: r then completes and frees its connection
// (HTTP/1.1) or stream. The wait is to the time the queue computed, so
// a late wake-up does not add up over the responses. It returns at once
// without the model, or when the load is stopped.
func (l *loader) process(r *request) {
	if l.proc == nil {
		return
	}
	r.received = r.done
	r.done = l.proc.take(r.received, r.bytes)
	t := time.NewTimer(time.Until(r.done))
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.ctx.Done():
	}
}
