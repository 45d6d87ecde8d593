package tlsscan

import (
	"context"
	"slices"
	"sync"
)

// slots bounds the prober's connections in flight. When all are taken,
// a freed slot goes to the waiter of the most urgent priority, the first
// come among equals: behind a slow link the enumeration's offers wait for
// slots, and those that the longest chains of offers after them wait for
// go first.
type slots struct {
	mu      sync.Mutex
	free    int
	waiting []*slotWaiter // most urgent first
	arrived uint64
}

type slotWaiter struct {
	priority int
	arrival  uint64
	granted  chan struct{}
}

func newSlots(n int) *slots { return &slots{free: n} }

// acquire waits for a slot; it fails only when ctx ends first.
func (s *slots) acquire(ctx context.Context, priority int) error {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{priority: priority, arrival: s.arrived, granted: make(chan struct{})}
	s.arrived++
	i, _ := slices.BinarySearchFunc(s.waiting, w, func(a, b *slotWaiter) int {
		if a.priority != b.priority {
			return a.priority - b.priority
		}
		return int(a.arrival) - int(b.arrival)
	})
	s.waiting = slices.Insert(s.waiting, i, w)
	s.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if i := slices.Index(s.waiting, w); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
		s.mu.Unlock()
		return ctx.Err()
	}
	// Granted as ctx ended: the slot goes on.
	s.mu.Unlock()
	s.release()
	return ctx.Err()
}

// release frees a slot, handing it to the most urgent waiter.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) == 0 {
		s.free++
		return
	}
	w := s.waiting[0]
	s.waiting = s.waiting[1:]
	close(w.granted)
}

// Priorities of offers, most urgent first: the suites of the versions
// with the longest searches, then the other versions', then the offers
// no other offer waits for.
const (
	priorityLongSearch = iota
	prioritySearch
	priorityDefault
	priorityLeaf
)

type priorityKey struct{}

// withPriority returns ctx whose offers wait for slots with priority.
func withPriority(ctx context.Context, priority int) context.Context {
	return context.WithValue(ctx, priorityKey{}, priority)
}

// priorityOf returns the priority of ctx's offers.
func priorityOf(ctx context.Context) int {
	if p, ok := ctx.Value(priorityKey{}).(int); ok {
		return p
	}
	return priorityDefault
}
