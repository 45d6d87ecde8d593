package page

import (
	"container/heap"
	"net"
	"net/url"
	"sync"
	"time"
)

// poolKey names the connections a request may use: one origin, and for
// credential-less requests (cross-origin fonts) a pool of their own, as
// browsers keep them.
type poolKey struct {
	origin string // scheme://host:port
	anon   bool
}

// pool is the queue and the connections of one poolKey.
type pool struct {
	key   poolKey
	u     *url.URL // scheme and host of the origin
	queue queue
	cond  *sync.Cond // on loader.mu: a request was queued, or the load finished
	conns int        // HTTP/1.1: connections open or opening
	idle  int        // HTTP/1.1: connections waiting for a request
	mux   bool       // HTTP/2 and HTTP/3: the one connection was started
	dead  error      // the origin could not be reached: later requests fail at once
}

// pool returns the pool of u, making it on first use. It must be called
// with l.mu held.
func (l *loader) pool(u *url.URL, anon bool) *pool {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	k := poolKey{origin: u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port), anon: anon}
	p, ok := l.pools[k]
	if !ok {
		p = &pool{key: k, u: &url.URL{Scheme: u.Scheme, Host: u.Host}, cond: sync.NewCond(&l.mu)}
		l.pools[k] = p
	}
	return p
}

// kick starts a connection for p's queue when it needs one: over
// HTTP/1.1 a new one while requests wait for more connections than are
// idle, up to MaxConnsPerOrigin (each pending request starts a
// connection, as a browser's socket pool does); over HTTP/2 and HTTP/3
// the one connection. It must be called with l.mu held.
func (l *loader) kick(p *pool) {
	if l.cfg.Protocol.major() == 1 {
		if p.queue.Len() > p.idle && p.conns < l.cfg.MaxConnsPerOrigin {
			p.conns++
			l.wg.Add(1)
			go l.h1Worker(p)
			return
		}
	} else if !p.mux {
		p.mux = true
		l.wg.Add(1)
		go l.muxWorker(p)
		return
	}
	p.cond.Signal()
}

// next waits for the highest-priority request of p's queue, or the end
// of the load (nil). ready reports whether the caller may take one more
// request now (a free stream). It must be called with l.mu held.
func (l *loader) next(p *pool, ready func() bool) *request {
	for !l.finished && (p.queue.Len() == 0 || !ready()) {
		p.idle++
		p.cond.Wait()
		p.idle--
	}
	if l.finished {
		return nil
	}
	r := heap.Pop(&p.queue).(*request)
	r.assigned = time.Now()
	return r
}

// deadPool fails every queued request of p, and later ones, with err:
// its origin could not be reached. It must be called with l.mu held.
func (l *loader) deadPool(p *pool, err error) {
	p.dead = err
	for p.queue.Len() > 0 {
		l.failLocked(heap.Pop(&p.queue).(*request), err)
	}
}

// queue orders requests by kind (the browser's priority), then by
// discovery.
type queue []*request

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].ref.Kind != q[j].ref.Kind {
		return q[i].ref.Kind < q[j].ref.Kind
	}
	return q[i].id < q[j].id
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(*request)) }
func (q *queue) Pop() any {
	old := *q
	r := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return r
}
