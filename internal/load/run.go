package load

import (
	"context"
	"github.com/httpslab/httpslab/internal/transport"
	"sync"
	"sync/atomic"
	"time"
)

// runner is the state shared by the workers of one run.
type runner struct {
	ctx    context.Context
	cfg    Config
	ep     *endpoint
	src    *source
	conns  conns
	events chan *batch
	start  time.Time
	// serverStreams is one more than the lowest
	// SETTINGS_MAX_CONCURRENT_STREAMS an HTTP/2 server sent (fast client),
	// 0 when none did: a server may allow 0.
	serverStreams atomic.Int64
	// noStreams is set once a request has waited out its time for a
	// server that allowed no streams (SETTINGS_MAX_CONCURRENT_STREAMS 0)
	// to allow one: later requests that meet the same fail at once.
	noStreams atomic.Bool
}

// noteServerStreams keeps the lowest stream limit a server announced.
func (r *runner) noteServerStreams(v uint32) {
	n := int64(v) + 1
	for {
		old := r.serverStreams.Load()
		if old != 0 && old <= n || r.serverStreams.CompareAndSwap(old, n) {
			return
		}
	}
}

// now is the time since the start of the run in nanoseconds, from the
// monotonic clock.
func (r *runner) now() int64 { return int64(time.Since(r.start)) }

// Run executes a load run and returns its result. The run ends after
// cfg.Requests requests or cfg.Duration, whichever is set; requests in
// flight at the end complete (within cfg.Timeout) and are counted. When
// ctx is cancelled the run stops at once, closes its connections and
// returns the partial result with Interrupted set. Failed requests are
// part of the result; Run returns an error only for a bad Config.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	total := cfg.withDefaults()
	cfg, err := total.share()
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Mode != transport.KeepAlive {
		// A handshake per request: see gcHeadroom.
		defer tuneGC()()
	}
	info := runInfo(ctx, total)
	ep, err := newEndpoint(ctx, cfg)
	if err != nil {
		return nil, err
	}
	workers, client, err := newWorkers(cfg)
	if err != nil {
		return nil, err
	}
	reqLog, err := beforeStart(ctx, cfg)
	if err != nil {
		return nil, err
	}
	cpu0 := readCPU(cfg.ServerPIDs)
	r := &runner{ctx: ctx, cfg: cfg, ep: ep, events: make(chan *batch, 4*cfg.Conns), start: time.Now()}
	r.src = &source{now: r.now, ctx: ctx}
	agg := newAggregator(cfg, r.start)
	if agg.log = reqLog; reqLog != nil {
		reqLog.start = r.start.UnixNano()
	}
	aggDone := make(chan struct{})
	go func() { agg.run(r.events, cfg.Progress); close(aggDone) }()
	schedDone := r.startSource(ctx)
	var stoppedAt atomic.Int64
	stop := context.AfterFunc(ctx, func() {
		stoppedAt.Store(r.now())
		r.conns.closeAll()
	})
	var wg sync.WaitGroup
	for i := 0; i < cfg.Conns; i++ {
		wg.Go(func() { workers(r, i) })
	}
	wg.Wait()
	<-schedDone
	stopped := !stop()
	close(r.events)
	<-aggDone
	res := agg.r
	res.Elapsed = time.Duration(agg.last)
	if stopped {
		// The run lasted until the interrupt, even when nothing ended
		// before it (a server that never answers): not 0 s.
		res.Elapsed = max(res.Elapsed, time.Duration(stoppedAt.Load()))
	}
	if cfg.Rate > 0 && cfg.Requests == 0 && !stopped {
		// The schedule spans -d even when its last send was answered
		// early (one send at --rate 0.5 -d 3s): the rates count over
		// the whole of it, or 2 requests in 3 s showed as 1.0/s.
		res.Elapsed = max(res.Elapsed, cfg.Duration)
	}
	agg.finish(res.Elapsed)
	res.Interrupted, res.Client, res.Run = stopped, client, info
	res.CPU = cpu0.since(readCPU(cfg.ServerPIDs))
	res.CPU.serverListens(ep.addrs, cfg.ServerPIDs, cfg.Protocol == transport.HTTP3)
	if ep.shares != nil {
		retries := res.KeyShares.HelloRetries
		res.KeyShares = ep.shares.use()
		res.KeyShares.HelloRetries = retries
	}
	r.noteSource(res)
	if reqLog != nil {
		if err := reqLog.close(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// noteSource adds what the source and the connections learnt to res:
// the sends dropped and the server's stream limit.
func (r *runner) noteSource(res *Result) {
	res.Dropped = r.src.dropped.Load()
	if n := r.serverStreams.Load(); n > 0 {
		n--
		res.ServerStreams = &n
	}
}

// startSource sets up the tickets: the pacer in the open model, a count
// or a deadline in the closed model. The returned channel is closed when
// the pacer has finished.
func (r *runner) startSource(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	cfg := r.cfg
	if cfg.Rate == 0 {
		r.src.limited = cfg.Requests > 0
		r.src.remaining.Store(cfg.Requests)
		if cfg.Requests == 0 {
			r.src.deadline = int64(cfg.Duration)
		}
		close(done)
		return done
	}
	// Queue up to a second of requests (at least one per stream) behind
	// busy workers; beyond that, sends are dropped and counted.
	// The rate is compared as a float: converting a huge one to int is
	// undefined.
	const maxQueue = 1 << 16
	size := min(cfg.Conns*cfg.Streams*cfg.Pipeline, maxQueue)
	if cfg.Rate >= maxQueue {
		size = maxQueue
	} else {
		size = max(size, int(cfg.Rate))
	}
	ch := make(chan ticket, size)
	r.src.open = ch
	p := ConstantPacer{Rate: cfg.Rate, Max: uint64(cfg.Requests)}
	if cfg.Requests == 0 {
		p.Duration = cfg.Duration
		r.src.end = int64(cfg.Duration)
	}
	go func() {
		schedule(ctx, p, r.start, ch, &r.src.dropped)
		if p.Duration > 0 {
			// The run lasts its -d, as the report says it does.
			t := time.NewTimer(time.Until(r.start.Add(p.Duration)))
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			t.Stop()
		}
		close(done)
	}()
	return done
}

// The clients a run may use, as Result.Client names them.
const (
	ClientH1     = "httpslab HTTP/1.1"                  // the hand-written HTTP/1.1 client (h1.go)
	ClientH2     = "httpslab HTTP/2"                    // the fast HTTP/2 client on x/net's Framer (h2fast.go)
	ClientNetH2  = "net/http HTTP/2 (golang.org/x/net)" // x/net's HTTP/2 client, the fast one's yardstick (h2.go)
	ClientQUICH3 = "quic-go HTTP/3"                     // HTTP/3 (h2.go)
)

// newWorkers returns the worker function for the run's protocol and the
// name of the client it runs.
func newWorkers(cfg Config) (func(*runner, int), string, error) {
	switch cfg.Protocol {
	case transport.HTTP2:
		if fast, ok := newH2Requests(cfg.Targets); ok && !cfg.libraryH2 {
			return func(r *runner, i int) { newH2Worker(r, fast, i).loop() }, ClientH2, nil
		}
		reqs, err := newHTTPRequests(cfg.Targets)
		if err != nil {
			return nil, "", err
		}
		return func(r *runner, i int) { (&muxWorker{run: r, reqs: reqs, next: i, dial: r.dialH2}).loop() }, ClientNetH2, nil
	case transport.HTTP3:
		reqs, err := newHTTPRequests(cfg.Targets)
		if err != nil {
			return nil, "", err
		}
		return func(r *runner, i int) { (&muxWorker{run: r, reqs: reqs, next: i, dial: r.dialH3}).loop() }, ClientQUICH3, nil
	}
	reqs, err := newH1Requests(cfg.Targets)
	if err != nil {
		return nil, "", err
	}
	return func(r *runner, i int) {
		// 16 KiB of read buffer per connection over TLS, 16 MiB at -c 1000;
		// 64 KiB over plain HTTP, whose reads take what the socket holds.
		size := h1ReadBuffer
		if r.ep.tls != nil {
			size = h1ReadBufferTLS
		}
		w := &h1Worker{run: r, reqs: reqs, next: i % len(reqs), rec: newRecorder(r.events),
			rd: newH1Reader(size, r.cfg.MaxHeaderBytes)}
		w.loop()
	}, ClientH1, nil
}
