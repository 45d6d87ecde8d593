package compare

import (
	"context"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/machine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestWriteTextGolden renders a comparison of deterministic samplers (40
// ms RTT, each variant a known number of round trips) and compares it
// with testdata/text.golden.
func TestWriteTextGolden(t *testing.T) {
	const rtt = 40 * time.Millisecond
	rounds := map[string]float64{"http h1": 2, "https h1 TLS1.3": 3, "https h1 TLS1.2": 4, "https h1 TLS1.2 resumed": 3}
	var vs []Variant
	for i, k := range []Key{{Scheme: "http", Proto: "http1.1", Conn: "fresh"}, base, base.with(DimTLS, "1.2"), base.with(DimTLS, "1.2").with(DimHandshake, "resumed")} {
		r := rand.New(rand.NewPCG(uint64(i), 3))
		n := rounds[k.Name()]
		vs = append(vs, Variant{Key: k, Sampler: func(context.Context) (Sample, error) {
			d := time.Duration(n*float64(rtt)) + time.Duration(r.Float64()*float64(2*time.Millisecond))
			return Sample{Total: d, RTT: rtt, WireBytes: int64(1000 * n), CPU: time.Millisecond,
				Phases: map[string]time.Duration{"connect": rtt, "wait": rtt}}, nil
		}})
	}
	vs = append(vs, Variant{Key: base.with(DimProto, "http3"), Sampler: func(context.Context) (Sample, error) {
		return Sample{}, context.DeadlineExceeded
	}})
	res, err := Run(context.Background(), Config{Variants: vs, Runs: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "text.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading %s (run with -update to create it): %v", golden, err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("WriteText mismatch (-want +got):\n%s", diff)
	}
}

// TestStealLine checks that a comparison states the hypervisor's steal
// when it was measured (and only then), in the text and the JSON.
func TestStealLine(t *testing.T) {
	vs := []Variant{
		{Key: Key{Scheme: "http", Proto: "http1.1", Conn: "fresh"}, Sampler: func(context.Context) (Sample, error) { return Sample{Total: time.Millisecond}, nil }},
		{Key: base, Sampler: func(context.Context) (Sample, error) { return Sample{Total: 2 * time.Millisecond}, nil }},
	}
	res, err := Run(context.Background(), Config{Variants: vs, Runs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if res.Steal != nil || strings.Contains(b.String(), "steal:") {
		t.Errorf("a run of a few ms measured steal %+v:\n%s", res.Steal, b.String())
	}
	st := machine.Steal{Stolen: 4 * time.Second, Wall: 10 * time.Second, CPUs: 2}
	res.Steal = &st
	b.Reset()
	if err := res.WriteText(&b); err != nil {
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
