package tlsscan

import (
	"context"
	"net"
	"slices"
	"sync"
	"time"
)

// slots bounds the audit's connections open at once (see
// countingDialer). When all are taken, a freed slot goes to the waiter of
// the most urgent priority, the first come among equals: behind a slow
// link the connections wait for slots, and those that the longest chains
// of connections after them wait for go first.
type slots struct {
	n       int // slots in all
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

func newSlots(n int) *slots { return &slots{free: n, n: n} }

// size returns how many connections the slots allow open at once; 0 for
// no slots, which bound nothing.
func (s *slots) size() int {
	if s == nil {
		return 0
	}
	return s.n
}

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

// slotConn is a connection that holds a slot until it is closed.
type slotConn struct {
	net.Conn
	// connect is the TCP connect time, without the wait for the slot.
	connect time.Duration
	// deadline is the end of the dialer's timeout, counted from the
	// moment the slot was granted; zero for none.
	deadline time.Time
	once     sync.Once
	release  func()
}

// within returns ctx ending at c's deadline; with none, timeout from now.
func (c *slotConn) within(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if c.deadline.IsZero() {
		return context.WithTimeout(ctx, timeout)
	}
	return context.WithDeadline(ctx, c.deadline)
}

// Close closes the connection and frees its slot, once.
func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// Priorities of connections, most urgent first: the first handshake,
// which the group scan and the resumption checks wait for, and the
// resumption checks, the longest chain of connections made one after the
// other (each reconnection offers the session of the one before); the
// suites of the versions with the longest searches, then the other
// versions'; the checks no other connection waits for (the known
// attacks, HTTP); last the group scan's offers, which take the slots
// the others leave. Behind a 100 ms link, an audit of nginx with every
// version and suite (scripts/audit-time.sh) holds connections for some
// 38 s in all: at 48 slots in this order it takes as long as when only
// the enumeration's connections were bounded, at 32 a round trip more.
const (
	priorityFirst = iota
	priorityLongSearch
	prioritySearch
	priorityDefault
	priorityLeaf
)

// priorityResumption is the resumption checks' priority (see above).
const priorityResumption = priorityFirst

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
