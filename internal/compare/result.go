package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/stats"
)

// Why a run stopped.
const (
	StopRuns           = "runs"            // the fixed number of runs was done
	StopPrecision      = "precision"       // every median was precise enough
	StopMaxRuns        = "max-runs"        // the precision was not reached within --max-runs
	StopInterrupted    = "interrupted"     // the run was cancelled
	StopBaselineFailed = "baseline-failed" // the baseline was dropped: nothing left to compare against
)

// Result is a whole comparison: the samples and what they show.
type Result struct {
	Variants []VariantResult `json:"variants"`
	// Effects compares each pair of variants that differ in exactly one
	// dimension, from the reference value to the other.
	Effects []Effect `json:"effects"`
	// RTT is the median round-trip time measured over all connections;
	// zero when none was measured.
	RTT    time.Duration `json:"rtt_ns"`
	Rounds int           `json:"rounds"`
	Stop   string        `json:"stop"`
	Seed   uint64        `json:"seed"`
	Level  float64       `json:"level"`
	Alpha  float64       `json:"alpha"`
	// Holm is true when significance comes from Holm-adjusted p-values.
	Holm bool `json:"holm"`
	// Steal is the CPU time the hypervisor took from the machine during
	// the comparison; nil where it was not measured. The rounds are
	// interleaved, so steal widens the intervals rather than favouring a
	// variant.
	Steal *machine.Steal `json:"steal,omitempty"`
}

// VariantResult is one variant: its samples and their summary. Times in
// summaries are milliseconds.
type VariantResult struct {
	Name string `json:"name"`
	Key  Key    `json:"key"`
	// Samples are the successful measured requests, in order.
	Samples []Sample `json:"samples"`
	// Errors counts failed requests by message.
	Errors map[string]int `json:"errors,omitempty"`
	// Dropped says why the variant stopped being measured, if it did;
	// Err is the error that dropped it.
	Dropped string `json:"dropped,omitempty"`
	Err     error  `json:"-"`
	// Total summarises the total time of a request, in ms.
	Total Summary `json:"total_ms"`
	// Phases summarises each phase that happened, in ms.
	Phases map[string]Summary `json:"phases_ms,omitempty"`
	// WireBytes, HandshakeBytes, BodyBytes and CPU are the medians per
	// request. They are left out of JSON for a variant with no sample.
	WireBytes      float64       `json:"wire_bytes,omitempty"`
	HandshakeBytes float64       `json:"handshake_bytes,omitempty"`
	BodyBytes      float64       `json:"body_bytes,omitempty"`
	CPU            time.Duration `json:"cpu_ns,omitempty"`
	// VsBaseline compares the total time against the first variant; nil
	// for the baseline itself and when a side has no sample.
	VsBaseline *Diff `json:"vs_baseline,omitempty"`
}

// Summary is a stats.Summary that encodes to JSON with names.
type Summary struct {
	N        int            `json:"n"`
	Median   float64        `json:"median"`
	Lo       float64        `json:"ci_lo"`
	Hi       float64        `json:"ci_hi"`
	CILevel  float64        `json:"ci_level"` // 0 when the sample is too small for an interval
	Min      float64        `json:"min"`
	P90      float64        `json:"p90"`
	Max      float64        `json:"max"`
	MedianCI stats.Interval `json:"-"`
}

// MarshalJSON writes a summary of no sample as {"n":0} alone, so that a
// variant that was not measured shows no median or interval of zero.
func (s Summary) MarshalJSON() ([]byte, error) {
	if s.N == 0 {
		return []byte(`{"n":0}`), nil
	}
	type plain Summary // without this method
	return json.Marshal(plain(s))
}

func summarize(xs []float64, level float64) Summary {
	if len(xs) == 0 {
		return Summary{} // zeros, not NaN, which JSON cannot carry
	}
	s := stats.Summarize(xs, level)
	return Summary{
		N: s.N, Median: s.Median, Lo: s.MedianCI.Lo, Hi: s.MedianCI.Hi, CILevel: s.MedianCI.Level,
		Min: s.Min, P90: s.P90, Max: s.Max, MedianCI: s.MedianCI,
	}
}

// Diff is how much slower (positive) or faster (negative) a variant is
// than another, in ms and, when the RTT is known, in round trips.
type Diff struct {
	MS float64 `json:"ms"` // Hodges-Lehmann shift
	// Lo and Hi bound the shift at level 1 - alpha (not Result.Level,
	// which is that of the medians), so that the interval leaves out zero
	// when the difference is significant; CILevel is the interval's exact
	// coverage, 0 when too few samples for an interval.
	Lo      float64 `json:"ci_lo_ms"`
	Hi      float64 `json:"ci_hi_ms"`
	CILevel float64 `json:"ci_level"`
	RTTs    float64 `json:"rtts,omitempty"` // MS over the RTT; 0 (left out) when the RTT is unknown or too short to count round trips
	P       float64 `json:"p"`              // Mann-Whitney two-sided p-value
	Exact   bool    `json:"p_exact"`
	// PHolm is P adjusted with Holm's method over its family: all the
	// differences from the baseline, or all the effects.
	PHolm float64 `json:"p_holm"`
	// Significant is P < alpha, or PHolm < alpha with Config.Holm.
	Significant bool `json:"significant"`
	// Bytes is the difference of the median bytes on the wire.
	Bytes float64 `json:"wire_bytes"`
}

// Effect is the Diff between two variants that differ in one dimension.
type Effect struct {
	Dim  string `json:"dimension"`
	From int    `json:"from"` // index into Variants: the reference value
	To   int    `json:"to"`
	Diff Diff   `json:"diff"`
}

// Failure returns an error when a finished run leaves the question it was
// asked without an answer: no variant but the baseline was measured, or
// HTTPS variants were asked for and none of them was (a certificate the
// client does not trust fails them all in the warm-up, and a report of
// plain HTTP alone would pass for a comparison). The error wraps the one
// that dropped the first such variant, for the caller's hint. An
// interrupted run, or one whose baseline failed, is left to Run's error.
func (res *Result) Failure() error {
	if res.Stop == StopInterrupted || res.Stop == StopBaselineFailed || len(res.Variants) < 2 {
		return nil
	}
	vs := res.Variants
	isHTTPS := func(v VariantResult) bool { return v.Key.Scheme == "https" }
	measured := func(v VariantResult) bool { return v.Total.N > 0 }
	if i := slices.IndexFunc(vs, isHTTPS); i >= 0 && !slices.ContainsFunc(vs, func(v VariantResult) bool { return isHTTPS(v) && measured(v) }) {
		return fmt.Errorf("no HTTPS variant could be measured: %w", &VariantError{Key: vs[i].Key, Err: vs[i].dropErr()})
	}
	if !slices.ContainsFunc(vs[1:], measured) {
		return fmt.Errorf("nothing to compare with the baseline %s: %w", vs[0].Name, &VariantError{Key: vs[1].Key, Err: vs[1].dropErr()})
	}
	return nil
}

// dropErr is the error that dropped the variant, or one made of its
// reason when that error is not known (a result read back from JSON).
func (v *VariantResult) dropErr() error {
	switch {
	case v.Err != nil:
		return v.Err
	case v.Dropped != "":
		return errors.New(v.Dropped)
	}
	return errors.New("not measured")
}

func newResult(cfg Config) *Result {
	res := &Result{Seed: cfg.Seed, Level: cfg.Level, Alpha: cfg.Alpha, Holm: cfg.Holm}
	for _, v := range cfg.Variants {
		name := v.Name
		if name == "" {
			name = v.Key.Name()
		}
		res.Variants = append(res.Variants, VariantResult{Name: name, Key: v.Key, Errors: map[string]int{}})
	}
	return res
}

// analyse fills the summaries, the differences and the effects.
func (res *Result) analyse(cfg Config) {
	res.RTT = medianRTT(res.Variants)
	for i := range res.Variants {
		v := &res.Variants[i]
		v.Total = summarize(totalsMS(v.Samples), cfg.Level)
		v.Phases = phaseSummaries(v.Samples, cfg.Level)
		if len(v.Samples) > 0 {
			v.WireBytes = median(v.Samples, func(s Sample) float64 { return float64(s.WireBytes) })
			v.HandshakeBytes = median(v.Samples, func(s Sample) float64 { return float64(s.HandshakeBytes) })
			v.BodyBytes = median(v.Samples, func(s Sample) float64 { return float64(s.BodyBytes) })
			v.CPU = time.Duration(median(v.Samples, func(s Sample) float64 { return float64(s.CPU) }))
		}
	}
	// A variant one dimension away from the baseline is both compared
	// against it and one side of an effect: each pair is computed once.
	diffs := map[[2]int]*Diff{}
	diff := func(i, j int) *Diff {
		d, ok := diffs[[2]int{i, j}]
		if !ok {
			d = res.diff(i, j)
			diffs[[2]int{i, j}] = d
		}
		if d == nil {
			return nil
		}
		c := *d // each family adjusts its own copy
		return &c
	}
	for i := 1; i < len(res.Variants); i++ {
		res.Variants[i].VsBaseline = diff(0, i)
	}
	res.Effects = res.effects(diff)
	var family []*Diff
	for i := range res.Variants {
		if d := res.Variants[i].VsBaseline; d != nil {
			family = append(family, d)
		}
	}
	res.adjust(family)
	family = family[:0]
	for i := range res.Effects {
		family = append(family, &res.Effects[i].Diff)
	}
	res.adjust(family)
}

// adjust sets the Holm-adjusted p-values of a family of differences and,
// with Holm on, judges their significance by them.
func (res *Result) adjust(family []*Diff) {
	ps := make([]float64, len(family))
	for i, d := range family {
		ps[i] = d.P
	}
	for i, p := range stats.Holm(ps) {
		family[i].PHolm = p
		if res.Holm {
			family[i].Significant = p < res.Alpha
		}
	}
}

// Between compares variant j against variant i, as the differences from
// the baseline are (its own Holm adjustment left aside); nil when a side
// has no sample. page compares protocols pairwise with it.
func (res *Result) Between(i, j int) *Diff { return res.diff(i, j) }

// diff compares variant j against variant i; nil when a side is empty.
func (res *Result) diff(i, j int) *Diff {
	a, b := res.Variants[i], res.Variants[j]
	// The interval is at 1 - alpha, the level that goes with the test:
	// Moses' interval is the Mann-Whitney test inverted, so it leaves out
	// zero exactly when p < alpha (before Holm's adjustment), and a
	// "significant" difference never comes with an interval across zero.
	c, err := stats.Compare(totalsMS(a.Samples), totalsMS(b.Samples), 1-res.Alpha)
	if err != nil {
		return nil
	}
	d := &Diff{
		MS: c.Shift, Lo: c.ShiftCI.Lo, Hi: c.ShiftCI.Hi, CILevel: c.ShiftCI.Level,
		P: c.Test.P, Exact: c.Test.Exact,
		Significant: c.Significant(res.Alpha),
		Bytes:       b.WireBytes - a.WireBytes,
	}
	// On loopback the RTT is tens of microseconds: a difference in
	// computation divided by it is no count of round trips.
	if ms(res.RTT) >= minRTTForRounds {
		d.RTTs = c.Shift / ms(res.RTT)
	}
	return d
}

// effects finds every pair of measured variants that differ in one
// dimension only and compares the second against the first with diff.
func (res *Result) effects(diff func(i, j int) *Diff) []Effect {
	var out []Effect
	for j, to := range res.Variants {
		for _, d := range Dimensions {
			ref := reference(to.Key, d)
			if ref == to.Key {
				continue
			}
			i := slices.IndexFunc(res.Variants, func(v VariantResult) bool { return v.Key == ref })
			if i < 0 {
				continue
			}
			if e := diff(i, j); e != nil {
				out = append(out, Effect{Dim: d, From: i, To: j, Diff: *e})
			}
		}
	}
	return out
}

// reference is the key that k is compared against in dimension d: plain
// HTTP for HTTPS, HTTP/1.1 for HTTP/2 and HTTP/3, TLS 1.3 for TLS 1.2, a
// full handshake for a resumed one, QUIC's full handshake for 0-RTT, and
// a fresh connection for a kept-alive one.
func reference(k Key, d string) Key {
	ref := references[d]
	if k.get(d) == "" || k.get(d) == ref {
		return k
	}
	if d == DimProto && k.Handshake != "full" {
		return k // resumption and 0-RTT are compared within their protocol
	}
	return k.with(d, ref)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func totalsMS(ss []Sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = ms(s.Total)
	}
	return out
}

// median is the median of one number of each sample.
func median(ss []Sample, of func(Sample) float64) float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = of(s)
	}
	return stats.Median(out)
}

// phaseSummaries summarises each phase over the samples where it happened.
func phaseSummaries(ss []Sample, level float64) map[string]Summary {
	by := map[string][]float64{}
	for _, s := range ss {
		for name, d := range s.Phases {
			by[name] = append(by[name], ms(d))
		}
	}
	out := make(map[string]Summary, len(by))
	for name, xs := range by {
		out[name] = summarize(xs, level)
	}
	return out
}

// medianRTT is the median of the RTTs measured on all connections.
func medianRTT(vs []VariantResult) time.Duration {
	var xs []float64
	for _, v := range vs {
		for _, s := range v.Samples {
			if s.RTT > 0 {
				xs = append(xs, float64(s.RTT))
			}
		}
	}
	if len(xs) == 0 {
		return 0
	}
	return time.Duration(stats.Median(xs))
}
