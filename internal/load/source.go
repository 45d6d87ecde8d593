package load

import (
	"context"
	"sync/atomic"
	"time"
)

// source hands out tickets to workers: in the open model the pacer's
// scheduled times, in the closed model as many as -n allows until the
// deadline. It is safe for concurrent use.
type source struct {
	open      <-chan ticket // open model; nil in the closed model
	limited   bool          // closed model with an exact count
	remaining atomic.Int64
	deadline  int64 // closed model: no tickets after this time (0: none)
	// end is, in the open model with a duration, the end of the
	// schedule: a ticket still queued then and late is dropped rather
	// than sent after -d (0: no end, -n counts).
	end     int64
	now     func() int64
	ctx     context.Context // the run's: cancelled by an interrupt
	dropped atomic.Int64    // open model: tickets dropped, all workers busy
}

// halted reports whether the run was interrupted. It reads the run's
// context itself, not a flag set after the cancellation by a function of
// its own: in between, on busy cores, a worker could fail hundreds of
// dials with "operation was canceled" and count them as errors of the
// server.
func (s *source) halted() bool {
	return s.ctx.Err() != nil
}

// next blocks until a request is due and returns its ticket, or false
// when the run has no more requests.
func (s *source) next() (ticket, bool) {
	if s.halted() {
		return 0, false
	}
	if s.open != nil {
		for {
			t, ok := <-s.open
			if ok && s.expired(t) {
				continue
			}
			return t, ok && !s.halted()
		}
	}
	return s.closed()
}

// expireAfter is how far behind its time a ticket taken after the end of
// the schedule may be and still be sent.
const expireAfter = 100 * time.Millisecond

// expired reports, and counts as dropped, a ticket taken after the end of
// the schedule more than expireAfter behind its time. Such a ticket
// waited in the queue because every worker was busy; sending the queue
// after -d would stretch a 2 s run against a stalled server to minutes (a
// second of sends at the rate, at the pace the server answers). The
// grace is not LateAfter: on a busy machine the last ticket of a run that
// kept up can be taken tens of milliseconds late (79 ms seen on 2 shared
// cores), and dropping it made --rate 400 -d 1.5s send 599.
func (s *source) expired(t ticket) bool {
	if s.end == 0 {
		return false
	}
	now := s.now()
	if now < s.end || now-t <= int64(expireAfter) {
		return false
	}
	s.dropped.Add(1)
	return true
}

// poll is tryNext that also says, when no ticket is ready, whether more
// may come: in the open model an empty queue is not the end of the
// schedule.
func (s *source) poll() (t ticket, ok, more bool) {
	if s.halted() {
		return 0, false, false
	}
	if s.open == nil {
		t, ok = s.closed()
		return t, ok, ok
	}
	for {
		select {
		case t, ok := <-s.open:
			if !ok {
				return 0, false, false
			}
			if !s.expired(t) {
				return t, true, true
			}
		default:
			return 0, false, true
		}
	}
}

// tryNext is next without blocking, for filling an HTTP/1.1 pipeline.
func (s *source) tryNext() (ticket, bool) {
	if s.halted() {
		return 0, false
	}
	if s.open != nil {
		for {
			select {
			case t, ok := <-s.open:
				if ok && s.expired(t) {
					continue
				}
				return t, ok
			default:
				return 0, false
			}
		}
	}
	return s.closed()
}

func (s *source) closed() (ticket, bool) {
	if s.deadline > 0 && s.now() >= s.deadline {
		return 0, false
	}
	if s.limited && s.remaining.Add(-1) < 0 {
		return 0, false
	}
	return -1, true
}
