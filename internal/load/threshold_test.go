package load

import (
	"strings"
	"testing"
	"time"
)

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in     string
		metric string
		op     string
		value  float64
		pct    bool
		bad    bool
	}{
		{in: "p99>200ms", metric: "p99", op: ">", value: 200000},
		{in: "p99.9 >= 1s", metric: "p99.9", op: ">=", value: 1e6},
		{in: "errors>0.1%", metric: "errors", op: ">", value: 0.001, pct: true},
		{in: "errors>0", metric: "errors", op: ">", value: 0},
		{in: "rps<1000", metric: "rps", op: "<", value: 1000},
		{in: "mean<=5ms", metric: "mean", op: "<=", value: 5000},
		{in: "p99", bad: true},
		{in: "p101>1ms", bad: true},
		{in: "latency>1ms", bad: true},
		{in: "p99>fast", bad: true},
		{in: "errors>", bad: true},
		// Values no measurement can cross: the run would never fail.
		{in: "errors>NaN%", bad: true},
		{in: "errors>nan", bad: true},
		{in: "rps<Inf", bad: true},
		{in: "rps<-1", bad: true},
		{in: "p99>-5ms", bad: true},
		{in: "errors>150%", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseThreshold(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseThreshold(%q) = %+v; want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got.Metric != tt.metric || got.Op != tt.op || got.Value != tt.value || got.Pct != tt.pct {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %s %s %v pct=%v", tt.in, got, err, tt.metric, tt.op, tt.value, tt.pct)
		}
	}
}

func TestThresholdTripped(t *testing.T) {
	a := newAggregator(Config{}, time.Now())
	for i := 1; i <= 100; i++ {
		a.add(&event{intended: -1, start: 0, end: int64(i) * int64(time.Millisecond), status: 200})
	}
	a.add(&event{intended: -1, err: errMalformed})
	r := a.r
	r.Elapsed = time.Second
	tests := []struct {
		cond string
		want bool
	}{
		{"p99>200ms", false},
		{"p99>50ms", true},
		{"p50<=51ms", true}, // HDR reports the top of the 0.1% bucket
		{"max>=100ms", true},
		{"errors>0", true},
		{"errors>1", false},
		{"errors>1%", false}, // 1 of 101
		{"errors>0.5%", true},
		{"rps<100", false},
		{"rps<101", true},
	}
	for _, tt := range tests {
		th, err := ParseThreshold(tt.cond)
		if err != nil {
			t.Fatal(err)
		}
		if got, v := th.Tripped(r); got != tt.want {
			t.Errorf("%q tripped = %v (measured %s); want %v", tt.cond, got, v, tt.want)
		}
	}
}

// TestParseThresholdUnitless checks the message for a latency without
// its unit, as wrk2 users write milliseconds: it said only "bad value".
func TestParseThresholdUnitless(t *testing.T) {
	for _, in := range []string{"p99>200", "mean>1.5", "max<=30"} {
		_, err := ParseThreshold(in)
		if err == nil || !strings.Contains(err.Error(), "needs a unit, e.g. ") {
			t.Errorf("ParseThreshold(%q) error %v; want one that asks for a unit", in, err)
		}
	}
	if _, err := ParseThreshold("rps<200"); err != nil {
		t.Errorf("ParseThreshold(%q): %v", "rps<200", err)
	}
}
