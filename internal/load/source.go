package load

import (
	"sync/atomic"
)

// source hands out tickets to workers: in the open model the pacer's
// scheduled times, in the closed model as many as -n allows until the
// deadline. It is safe for concurrent use.
type source struct {
	open      <-chan ticket // open model; nil in the closed model
	limited   bool          // closed model with an exact count
	remaining atomic.Int64
	deadline  int64 // closed model: no tickets after this time (0: none)
	now       func() int64
	stopped   atomic.Bool  // set when the run is interrupted
	dropped   atomic.Int64 // open model: tickets dropped, all workers busy
}

// next blocks until a request is due and returns its ticket, or false
// when the run has no more requests.
func (s *source) next() (ticket, bool) {
	if s.stopped.Load() {
		return 0, false
	}
	if s.open != nil {
		t, ok := <-s.open
		return t, ok && !s.stopped.Load()
	}
	return s.closed()
}

// tryNext is next without blocking, for filling an HTTP/1.1 pipeline.
func (s *source) tryNext() (ticket, bool) {
	if s.stopped.Load() {
		return 0, false
	}
	if s.open != nil {
		select {
		case t, ok := <-s.open:
			return t, ok
		default:
			return 0, false
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
