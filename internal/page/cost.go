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
// connection's path. The model: one thread does the work in the order it
// comes in, cost for each response as its headers arrive and perMB for
// each MB (10^6 bytes) of body as the bytes arrive; a response is
// processed once the thread has done its headers and its bytes, and no
// sooner than delay after its last byte arrived.
type processor struct {
	cost, perMB, delay time.Duration
	mu                 sync.Mutex
	free               time.Time // when the work queued so far will have been done
}

// queue adds work of duration d that came in at t and returns when it
// will have been done.
func (p *processor) queue(t time.Time, d time.Duration) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.free.Before(t) {
		p.free = t
	}
	p.free = p.free.Add(d)
	return p.free
}

// head queues the cost of a response whose headers arrived at t and
// returns when they will have been processed.
func (p *processor) head(t time.Time) time.Time { return p.queue(t, p.cost) }

// read queues the processing of n bytes of a body that arrived at t and
// returns when they will have been processed: the browser reads,
// decrypts and hands on a response's bytes as they come, on the thread
// that takes in the responses, so a small response whose bytes came
// behind a large one's waits for them.
func (p *processor) read(t time.Time, n int) time.Time {
	return p.queue(t, time.Duration(float64(p.perMB)*float64(n)/1e6))
}

// done returns when a response whose last byte arrived at t, and whose
// headers and bytes the queue has processed by queued, is processed.
func (p *processor) done(t, queued time.Time) time.Time {
	t = t.Add(p.delay)
	if queued.After(t) {
		return queued
	}
	return t
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
	r.done = l.proc.done(r.received, r.queued)
	t := time.NewTimer(time.Until(r.done))
	defer t.Stop()
	select {
	case <-t.C:
	case <-l.ctx.Done():
	}
}
