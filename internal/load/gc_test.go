package load

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	tests := []struct {
		live uint64
		want int
	}{
		{0, maxGCPercent},
		{1 << 20, maxGCPercent},
		{4 << 20, 400},
		{8 << 20, 200},
		{12 << 20, 133},
		{16 << 20, 100},
		{200 << 20, 100},
	}
	for _, tt := range tests {
		if got := gcPercent(tt.live); got != tt.want {
			t.Errorf("gcPercent(%d) = %d; want %d", tt.live, got, tt.want)
		}
	}
}

// gogc returns the current GOGC.
func gogc() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestTuneGC checks that tuning holds while any caller holds it, follows
// the collections, and that the last stop restores the setting from
// before, which GOGC in the environment leaves alone.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	stop1 := tuneGC()
	stop2 := tuneGC()
	tuned := func(when string) {
		t.Helper()
		if p := gogc(); p < 100 || p > maxGCPercent {
			t.Errorf("GOGC %s = %d; want 100 to %d", when, p, maxGCPercent)
		}
	}
	tuned("while tuned")
	debug.SetGCPercent(77) // undone by the next collection's hook
	runtime.GC()
	// The hook runs on the runtime's cleanup goroutine, after the sweep.
	for deadline := time.Now().Add(5 * time.Second); gogc() == 77 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	tuned("after a collection")
	stop1()
	stop1() // a second call changes nothing
	tuned("with one caller left")
	stop2()
	if p := gogc(); p != 77 {
		t.Errorf("GOGC after the last stop = %d; want 77, as before", p)
	}
	runtime.GC()
	if p := gogc(); p != 77 {
		t.Errorf("GOGC after a collection once stopped = %d; want 77", p)
	}

	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	stop := tuneGC()
	if p := gogc(); p != 50 {
		t.Errorf("GOGC with GOGC=50 in the environment = %d; want 50", p)
	}
	stop()
}
