package transport

import (
	"crypto/tls"
	"sync/atomic"
)

// SessionCache is a client session cache for resumption that also counts
// the tickets the servers sent, so a report can tell "the server sent no
// ticket" from "the server refused the ticket".
type SessionCache struct {
	cache   tls.ClientSessionCache
	tickets atomic.Int64
}

// NewSessionCache returns an empty cache holding up to capacity sessions
// (0: the crypto/tls default).
func NewSessionCache(capacity int) *SessionCache {
	return &SessionCache{cache: tls.NewLRUClientSessionCache(capacity)}
}

// Get returns the session stored for key.
func (s *SessionCache) Get(key string) (*tls.ClientSessionState, bool) {
	return s.cache.Get(key)
}

// Put stores a session; crypto/tls calls it with a nil cs to evict one.
func (s *SessionCache) Put(key string, cs *tls.ClientSessionState) {
	if cs != nil {
		s.tickets.Add(1)
	}
	s.cache.Put(key, cs)
}

// Tickets is the number of sessions (TLS 1.3 tickets, TLS 1.2 tickets or
// session IDs) stored so far.
func (s *SessionCache) Tickets() int64 { return s.tickets.Load() }
