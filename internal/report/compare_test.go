package report

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/transport"
)

// baseKey is compare's baseline HTTPS variant: HTTP/1.1, TLS 1.3, a full
// handshake on a fresh connection.
var baseKey = compare.Key{Scheme: "https", Proto: transport.HTTP1, TLS: "1.3", Handshake: "full", Conn: "fresh"}

// withKey returns baseKey changed by f.
func withKey(f func(*compare.Key)) compare.Key {
	k := baseKey
	f(&k)
	return k
}

// TestCompareGolden renders a comparison of deterministic samplers (40
// ms RTT, each variant a known number of round trips) and compares it
// with testdata/compare.golden.
func TestCompareGolden(t *testing.T) {
	res := goldenComparison(t)
	var b strings.Builder
	if err := Compare(&b, res); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "compare.golden", []byte(b.String()))
}

// goldenComparison runs compare on deterministic samplers: 40 ms RTT,
// each variant a known number of round trips, the last one failing.
func goldenComparison(t *testing.T) *compare.Result {
	t.Helper()
	const rtt = 40 * time.Millisecond
	rounds := map[string]float64{"http h1": 2, "https h1 TLS1.3": 3, "https h1 TLS1.2": 4, "https h1 TLS1.2 resumed": 3}
	var vs []compare.Variant
	for i, k := range []compare.Key{{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}, baseKey,
		withKey(func(k *compare.Key) { k.TLS = "1.2" }), withKey(func(k *compare.Key) { k.TLS, k.Handshake = "1.2", "resumed" })} {
		r := rand.New(rand.NewPCG(uint64(i), 3))
		n := rounds[k.Name()]
		vs = append(vs, compare.Variant{Key: k, Sampler: func(context.Context) (compare.Sample, error) {
			d := time.Duration(n*float64(rtt)) + time.Duration(r.Float64()*float64(2*time.Millisecond))
			return compare.Sample{Total: d, RTT: rtt, WireBytes: int64(1000 * n), CPU: time.Millisecond,
				Phases: map[string]time.Duration{"connect": rtt, "wait": rtt}}, nil
		}})
	}
	vs = append(vs, compare.Variant{Key: withKey(func(k *compare.Key) { k.Proto = transport.HTTP3 }), Sampler: func(context.Context) (compare.Sample, error) {
		return compare.Sample{}, context.DeadlineExceeded
	}})
	res, err := compare.Run(context.Background(), compare.Config{Variants: vs, Runs: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestStealLine checks that a comparison states the hypervisor's steal
// when it was measured (and only then), in the text and the JSON.
func TestStealLine(t *testing.T) {
	vs := []compare.Variant{
		{Key: compare.Key{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}, Sampler: fixedSample(time.Millisecond)},
		{Key: baseKey, Sampler: fixedSample(2 * time.Millisecond)},
	}
	res, err := compare.Run(context.Background(), compare.Config{Variants: vs, Runs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Compare(&b, res); err != nil {
		t.Fatal(err)
	}
	if res.Steal != nil || strings.Contains(b.String(), "steal:") {
		t.Errorf("a run of a few ms measured steal %+v:\n%s", res.Steal, b.String())
	}
	st := machine.Steal{Stolen: 4 * time.Second, Wall: 10 * time.Second, CPUs: 2}
	res.Steal = &st
	b.Reset()
	if err := Compare(&b, res); err != nil {
		t.Fatal(err)
	}
	if want := "steal: 20.0% of the machine's 2 CPU(s) taken by the hypervisor: the host was busy"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}
	js, err := json.Marshal(res)
	if want := `"steal":{"share":0.2,"stolen_s":4,"wall_s":10,"cpus":2}`; err != nil || !strings.Contains(string(js), want) {
		t.Errorf("JSON %s, %v; want %s", js, err, want)
	}
}

// fixedSample is a sampler whose every sample takes d.
func fixedSample(d time.Duration) compare.Sampler {
	return func(context.Context) (compare.Sample, error) { return compare.Sample{Total: d}, nil }
}

// jitterSample is a sampler of d plus up to 5 ms drawn from seed.
func jitterSample(seed uint64, d time.Duration) compare.Sampler {
	r := rand.New(rand.NewPCG(seed, 1))
	return func(context.Context) (compare.Sample, error) {
		return compare.Sample{Total: d + time.Duration(r.Float64()*float64(5*time.Millisecond))}, nil
	}
}

// TestCompareFooter checks what the footer says of a run: how it stopped,
// the alpha that "~" refers to, the level of the differences' intervals
// when alpha is not 0.05, and the notes a reader must know.
func TestCompareFooter(t *testing.T) {
	for _, alpha := range []float64{0.05, 0.01} {
		vs := []compare.Variant{{Key: compare.Key{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}, Sampler: jitterSample(1, 20*time.Millisecond)},
			{Key: baseKey, Sampler: jitterSample(2, 23*time.Millisecond)}}
		res, err := compare.Run(context.Background(), compare.Config{Variants: vs, Runs: 3, Warmup: -1, Alpha: alpha, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := Compare(&b, res); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if note := "intervals of the differences at " + compare.FormatLevel(1-alpha); strings.Contains(out, note) != (alpha != 0.05) {
			t.Errorf("alpha %v: report\n%s\nwant %q there when alpha is not 0.05", alpha, out, note)
		}
		for _, want := range []string{fmt.Sprintf("not significant at alpha %v", alpha), "stopped: " + res.Stop + ";"} {
			if !strings.Contains(out, want) {
				t.Errorf("alpha %v: report\n%s\nwant %q", alpha, out, want)
			}
		}
		notes := res.Notes()
		if len(notes) == 0 {
			t.Fatalf("alpha %v: 3 runs per variant gave no note", alpha)
		}
		for _, n := range notes {
			if !strings.Contains(out, "note: "+n+"\n") {
				t.Errorf("alpha %v: report\n%s\nwant the note %q", alpha, out, n)
			}
		}
	}
}
