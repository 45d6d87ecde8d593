package page

import (
	"context"
	"fmt"
	"time"
)

// StallError fails a request when nothing of it moved for the request
// timeout. A browser gives up on a stalled request, not on a slow one: on
// a 3G link an HTTP/2 stream that shares its connection with a hundred
// others takes a minute while its bytes keep coming, and is fine.
type StallError struct{ After time.Duration }

func (e StallError) Error() string {
	return fmt.Sprintf("nothing of the response for %v (--request-timeout)", e.After)
}

// Is makes a stall a deadline, as for a context's own timeout.
func (e StallError) Is(target error) bool { return target == context.DeadlineExceeded }

// Timeout reports true, as net.Error's timeouts do.
func (e StallError) Timeout() bool { return true }

// requestContext returns the context of one request's exchange and its
// release. The context is cancelled with a StallError when nothing of the
// request moved for the request timeout, counted from the first call of
// r.alive (the request goes out) and restarted by every later one (its
// write, its first byte, each read of its body). Before that, a request
// waiting for a stream slot on a multiplexed connection is bounded by the
// load's timeout alone, as the queue of HTTP/1.1 is.
func (l *loader) requestContext(r *request) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(l.ctx)
	d := l.cfg.RequestTimeout
	t := time.AfterFunc(d, func() { cancel(StallError{d}) })
	t.Stop()
	r.alive = func() { t.Reset(d) }
	return ctx, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}
