package load

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// A Pacer decides when the open model starts each request. Pace is pure:
// given the time since the start and the number of requests scheduled so
// far, it returns how long to wait before scheduling the next one, or
// stop when the run has scheduled all it should.
type Pacer interface {
	Pace(elapsed time.Duration, hits uint64) (wait time.Duration, stop bool)
}

// ConstantPacer schedules Rate requests per second, evenly spaced, up to
// Max requests (0: no limit) and for Duration (0: no limit).
type ConstantPacer struct {
	Rate     float64
	Max      uint64
	Duration time.Duration
}

// Pace implements Pacer. Request i (from 0) is due at i/Rate seconds; a
// pacer that falls behind schedules the overdue requests at once (wait 0)
// so the schedule, not the pacer's own delays, sets the intended times.
func (p ConstantPacer) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if p.Rate <= 0 || p.Max > 0 && hits >= p.Max {
		return 0, true
	}
	due := p.due(hits)
	if p.Duration > 0 && due >= p.Duration {
		return 0, true
	}
	if due <= elapsed {
		return 0, false
	}
	return due - elapsed, false
}

// due is the intended start of request i since the beginning of the run.
// A time past what a Duration holds (a rate of one request in centuries)
// saturates rather than wrapping round to a negative time that would be
// due at once.
func (p ConstantPacer) due(i uint64) time.Duration {
	ns := math.Round(float64(i) / p.Rate * float64(time.Second))
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// Due returns how many requests are due by elapsed (those with an
// intended start at or before it), within Max and Duration.
func (p ConstantPacer) Due(elapsed time.Duration) uint64 {
	if p.Rate <= 0 {
		return 0
	}
	n := math.Floor(elapsed.Seconds()*p.Rate) + 1
	if p.Duration > 0 {
		// Request i is in the schedule when i/Rate < Duration.
		n = min(n, math.Ceil(p.Duration.Seconds()*p.Rate))
	}
	if p.Max > 0 {
		n = min(n, float64(p.Max))
	}
	if n >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(n)
}

// MaxRate is the highest rate a ConstantPacer schedules: one request a
// nanosecond, the resolution of the intended start times.
const MaxRate = 1e9

// dueCounter is a Pacer that can say how many requests are due by a
// time. When the workers are so far behind that a ticket finds the queue
// full, schedule counts all the overdue ones as dropped at once, rather
// than trying them one by one: at --rate 1e8 that loop alone outlasted -d
// by seconds.
type dueCounter interface {
	Due(elapsed time.Duration) uint64
}

// ticket is one scheduled request: its intended start in nanoseconds
// since the start of the run, or -1 in the closed model where a request is
// due when its worker is free.
type ticket = int64

// schedule runs the pacer from start, sending each request's intended
// start time on out, until the pacer stops or ctx ends; it closes out. A
// ticket that finds out full is dropped (counted in *dropped): the workers
// are so far behind that queueing more would only grow memory.
func schedule(ctx context.Context, p Pacer, start time.Time, out chan<- ticket, dropped *atomic.Int64) {
	defer close(out)
	var hits uint64
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		elapsed := time.Since(start)
		wait, stop := p.Pace(elapsed, hits)
		if stop {
			return
		}
		// The request is due when the pacer says, whatever the timer's
		// own lateness: that is its intended start.
		due := elapsed + wait
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		select {
		case out <- int64(due):
		default:
			dropped.Add(1)
			if dc, ok := p.(dueCounter); ok {
				if n := dc.Due(time.Since(start)); n > hits+1 {
					dropped.Add(int64(n - hits - 1))
					hits = n - 1
				}
			}
		}
		hits++
		if ctx.Err() != nil {
			return
		}
	}
}
