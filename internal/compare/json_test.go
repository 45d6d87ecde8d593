package compare

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestUnmeasuredVariantJSON: a variant with no sample (dropped in the
// warm-up, as HTTP/3 against a server without it) carries no median,
// interval, bytes or CPU of zero in JSON, only n 0 and why.
func TestUnmeasuredVariantJSON(t *testing.T) {
	a, b := twoKeys()
	noH3 := func(context.Context) (Sample, error) {
		return Sample{}, errors.New("timeout: no recent network activity")
	}
	res, err := Run(context.Background(), Config{
		Variants: []Variant{{Key: a, Sampler: fixed(1, time.Millisecond, 0)}, {Key: b, Sampler: noH3}},
		Runs:     4, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Variants []map[string]json.RawMessage `json:"variants"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	dropped := doc.Variants[1]
	if got := string(dropped["total_ms"]); got != `{"n":0}` {
		t.Errorf("unmeasured total_ms = %s; want {\"n\":0}", got)
	}
	for _, k := range []string{"wire_bytes", "cpu_ns"} {
		if v, ok := dropped[k]; ok {
			t.Errorf("unmeasured variant has %s %s; want it left out", k, v)
		}
	}
	if !strings.Contains(string(dropped["dropped"]), "warm-up") {
		t.Errorf("dropped = %s; want why", dropped["dropped"])
	}
	measured := doc.Variants[0]
	if got := string(measured["total_ms"]); !strings.Contains(got, `"median":`) || !strings.Contains(got, `"n":4`) {
		t.Errorf("measured total_ms = %s; want n 4 and its median", got)
	}
	var back Result
	if err := json.Unmarshal(raw, &back); err != nil || back.Variants[0].Total.N != 4 || back.Variants[1].Total.N != 0 {
		t.Errorf("decoding the JSON back: %v, n %d and %d; want 4 and 0", err, back.Variants[0].Total.N, back.Variants[1].Total.N)
	}
}

// TestDiffRTTsOnlyWhenCountable: a difference is given in round trips
// only when the RTT is long enough for round trips to show; on loopback
// JSON carried -149 "RTTs" for a 3.5 ms difference in computation.
func TestDiffRTTsOnlyWhenCountable(t *testing.T) {
	withRTT := func(s Sampler, rtt time.Duration) Sampler {
		return func(ctx context.Context) (Sample, error) {
			x, err := s(ctx)
			x.RTT = rtt
			return x, err
		}
	}
	for _, tt := range []struct {
		rtt      time.Duration
		wantRTTs float64
	}{
		{20 * time.Microsecond, 0},
		{40 * time.Millisecond, 0.25}, // 10 ms more, a quarter of the RTT
	} {
		a, b := twoKeys()
		res, err := Run(context.Background(), Config{Variants: []Variant{
			{Key: a, Sampler: withRTT(fixed(1, 10*time.Millisecond, 0), tt.rtt)},
			{Key: b, Sampler: withRTT(fixed(2, 20*time.Millisecond, 0), tt.rtt)},
		}, Runs: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		d := res.Variants[1].VsBaseline
		if d == nil || math.Abs(d.RTTs-tt.wantRTTs) > 1e-9 {
			t.Fatalf("RTT %v: diff %+v; want RTTs %v", tt.rtt, d, tt.wantRTTs)
		}
		raw, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(raw), `"rtts"`); got != (tt.wantRTTs != 0) {
			t.Errorf("RTT %v: JSON %s; want rtts present %v", tt.rtt, raw, tt.wantRTTs != 0)
		}
	}
}
