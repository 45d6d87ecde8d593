package load

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestConstantPacerPace(t *testing.T) {
	p := ConstantPacer{Rate: 100, Max: 10, Duration: time.Second}
	tests := []struct {
		elapsed  time.Duration
		hits     uint64
		wait     time.Duration
		stop     bool
		pacerArg ConstantPacer
	}{
		{0, 0, 0, false, p},
		{0, 1, 10 * time.Millisecond, false, p},
		{5 * time.Millisecond, 1, 5 * time.Millisecond, false, p},
		{50 * time.Millisecond, 1, 0, false, p},                            // behind schedule: at once
		{0, 10, 0, true, p},                                                // Max reached
		{0, 100, 0, true, ConstantPacer{Rate: 100, Duration: time.Second}}, // due at 1s: past Duration
		{0, 99, 990 * time.Millisecond, false, ConstantPacer{Rate: 100, Duration: time.Second}},
		{0, 0, 0, true, ConstantPacer{}},
		// One request in 300 years: the second is due past what a
		// Duration holds, so it waits as long as one can, not 0.
		{0, 1, math.MaxInt64, false, ConstantPacer{Rate: 1e-10}},
		{time.Hour, 2, math.MaxInt64 - time.Hour, false, ConstantPacer{Rate: 1e-10}},
	}
	for _, tt := range tests {
		wait, stop := tt.pacerArg.Pace(tt.elapsed, tt.hits)
		if wait != tt.wait || stop != tt.stop {
			t.Errorf("%+v.Pace(%v, %d) = %v, %v; want %v, %v", tt.pacerArg, tt.elapsed, tt.hits, wait, stop, tt.wait, tt.stop)
		}
	}
}

// TestScheduleTimes checks, on a fake clock, that tickets leave on
// schedule and carry their intended times.
func TestScheduleTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out := make(chan ticket, 1000)
		var dropped atomic.Int64
		go schedule(context.Background(), ConstantPacer{Rate: 50, Duration: time.Second}, start, out, &dropped)
		var got []ticket
		for tk := range out {
			if lag := time.Since(start) - time.Duration(tk); lag != 0 {
				t.Errorf("ticket %v sent %v late; want on time", time.Duration(tk), lag)
			}
			got = append(got, tk)
		}
		if len(got) != 50 {
			t.Fatalf("got %d tickets in 1s at 50/s; want 50", len(got))
		}
		for i, tk := range got {
			if want := ticket(i) * int64(20*time.Millisecond); tk != want {
				t.Errorf("ticket %d intended at %v; want %v", i, time.Duration(tk), time.Duration(want))
			}
		}
		if dropped.Load() != 0 {
			t.Errorf("dropped = %d; want 0", dropped.Load())
		}
	})
}

// TestScheduleDrops checks that tickets finding the queue full are
// dropped and counted, not queued without bound.
func TestScheduleDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := make(chan ticket, 5)
		var dropped atomic.Int64
		done := make(chan struct{})
		go func() {
			schedule(context.Background(), ConstantPacer{Rate: 100, Max: 20}, time.Now(), out, &dropped)
			close(done)
		}()
		<-done
		if got := len(out); got != 5 {
			t.Errorf("queued %d; want 5", got)
		}
		if got := dropped.Load(); got != 15 {
			t.Errorf("dropped %d; want 15", got)
		}
	})
}

// TestScheduleCancel checks that cancelling stops the pacer at once.
func TestScheduleCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		out := make(chan ticket, 100)
		var dropped atomic.Int64
		start := time.Now()
		go schedule(ctx, ConstantPacer{Rate: 10}, start, out, &dropped)
		time.Sleep(250 * time.Millisecond)
		cancel()
		n := 0
		for range out {
			n++
		}
		if n != 3 {
			t.Errorf("got %d tickets in 250ms at 10/s; want 3", n)
		}
	})
}

// intervalPacer waits the same time before each request, up to max.
type intervalPacer struct {
	every time.Duration
	max   uint64
}

func (p intervalPacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	return p.every, hits >= p.max
}

// TestScheduleAnyPacer checks that the intended time of a ticket is when
// the pacer said it was due, for any Pacer, not only ConstantPacer.
func TestScheduleAnyPacer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		out := make(chan ticket, 100)
		var dropped atomic.Int64
		go schedule(ctx, intervalPacer{every: 30 * time.Millisecond, max: 5}, start, out, &dropped)
		var got []time.Duration
		for tk := range out {
			got = append(got, time.Duration(tk))
		}
		want := []time.Duration{30 * time.Millisecond, 60 * time.Millisecond, 90 * time.Millisecond,
			120 * time.Millisecond, 150 * time.Millisecond}
		if !slices.Equal(got, want) {
			t.Errorf("intended times %v; want %v", got, want)
		}
	})
}

// TestScheduleHugeRate checks that a rate far beyond what the workers can
// take ends with its duration: --rate 1e8 -d 1s ran past 4 s, scheduling
// its overdue requests one by one into a full queue. The overdue ones
// are dropped in bulk; every request of the schedule is either queued or
// dropped.
func TestScheduleHugeRate(t *testing.T) {
	for _, rate := range []float64{1e8, MaxRate} {
		start := time.Now()
		out := make(chan ticket, 64)
		var dropped atomic.Int64
		p := ConstantPacer{Rate: rate, Duration: 300 * time.Millisecond}
		done := make(chan struct{})
		go func() { schedule(context.Background(), p, start, out, &dropped); close(done) }()
		var queued int64
		for range out {
			queued++
			time.Sleep(time.Millisecond) // a busy worker
		}
		<-done
		if took := time.Since(start); took > 600*time.Millisecond {
			t.Errorf("--rate %g -d 300ms: the schedule ran %v; want it to end with its duration", rate, took)
		}
		if want := int64(p.Due(p.Duration)); queued+dropped.Load() != want {
			t.Errorf("--rate %g: %d queued and %d dropped; want %d in all", rate, queued, dropped.Load(), want)
		}
	}
}

func TestConstantPacerDue(t *testing.T) {
	tests := []struct {
		p       ConstantPacer
		elapsed time.Duration
		want    uint64
	}{
		{ConstantPacer{Rate: 100}, 0, 1},
		{ConstantPacer{Rate: 100}, 9 * time.Millisecond, 1},
		{ConstantPacer{Rate: 100}, 10 * time.Millisecond, 2},
		{ConstantPacer{Rate: 100, Duration: time.Second}, time.Hour, 100},
		{ConstantPacer{Rate: 100, Max: 7}, time.Hour, 7},
		{ConstantPacer{Rate: 3, Duration: time.Second}, time.Hour, 3},
		{ConstantPacer{Rate: 2.5, Duration: time.Second}, time.Hour, 3}, // 0, 0.4 s, 0.8 s
		{ConstantPacer{}, time.Hour, 0},
	}
	for _, tt := range tests {
		if got := tt.p.Due(tt.elapsed); got != tt.want {
			t.Errorf("%+v.Due(%v) = %d; want %d", tt.p, tt.elapsed, got, tt.want)
		}
		// Due agrees with Pace: request Due-1 is due, request Due is not.
		if n := tt.p.Due(tt.elapsed); n > 0 {
			if wait, stop := tt.p.Pace(tt.elapsed, n-1); wait != 0 || stop {
				t.Errorf("%+v: request %d of Due(%v) = %d is not due: Pace = %v, %v", tt.p, n-1, tt.elapsed, n, wait, stop)
			}
		}
	}
}
