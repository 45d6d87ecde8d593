// Package compare runs a matrix of client-side variants (scheme,
// protocol, TLS version, handshake, connection reuse) against one server,
// interleaved in rounds with a shuffled order, and states what each
// dimension costs or saves in milliseconds and round trips, with
// confidence intervals and a significance test, from the measured
// samples only.
package compare

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// Sample is one measured request of one variant.
type Sample struct {
	Round int           `json:"round"`    // 1-based measuring round
	Order int           `json:"position"` // 0-based position within its round, failed attempts counted
	Total time.Duration `json:"total_ns"`
	// Phases holds the duration of each phase that happened, by the
	// probe's phase names (dns, connect, tls, send, wait, download).
	Phases map[string]time.Duration `json:"phases_ns,omitempty"`
	// RTT is the round-trip time measured on the request's connection
	// (zero when unknown).
	RTT time.Duration `json:"rtt_ns,omitempty"`
	// WireBytes counts the bytes on the wire in both directions: TCP or
	// UDP payload, TLS records and handshake included.
	WireBytes int64 `json:"wire_bytes"`
	// HandshakeBytes counts the bytes of WireBytes up to the end of the
	// handshake (zero for plain HTTP and a kept-alive connection).
	HandshakeBytes int64 `json:"handshake_bytes,omitempty"`
	// BodyBytes is the size of the response body, decoded from the
	// protocol's framing: the same for every variant of one resource.
	BodyBytes int64 `json:"body_bytes"`
	// CPU is the process CPU time (user and system) spent while the
	// request ran.
	CPU time.Duration `json:"cpu_ns"`
	// What the connection really did, to check each variant is what it
	// claims to be.
	Proto      string `json:"proto,omitempty"`
	TLSVersion string `json:"tls_version,omitempty"`
	Group      string `json:"group,omitempty"` // key-exchange group
	Resumed    bool   `json:"resumed,omitempty"`
	EarlyData  bool   `json:"early_data,omitempty"`
	Reused     bool   `json:"reused,omitempty"`
}

// Sampler measures one request of a variant.
type Sampler func(ctx context.Context) (Sample, error)

// Variant is one column of the matrix.
type Variant struct {
	Key Key
	// Name labels the variant in the result; empty means Key.Name().
	Name    string
	Sampler Sampler
}

// Config sets up a run. Zero values mean the defaults.
type Config struct {
	// Variants to compare; the first is the baseline the others are
	// compared against.
	Variants []Variant
	// Runs is the number of measured requests per variant; 0 means 20.
	// With Precision set it is the minimum instead, and 0 means 10.
	Runs int
	// Warmup is the number of unmeasured rounds first; 0 means 1, a
	// negative value none.
	Warmup int
	// Precision, when above 0, keeps running rounds until the confidence
	// interval of every variant's median total is within ±Precision of
	// that median (0.05 for 5%), up to MaxRuns.
	Precision float64
	// MaxRuns bounds the runs per variant with Precision; 0 means 200.
	MaxRuns int
	// Level is the confidence level of the intervals; 0 means 0.95.
	Level float64
	// Alpha is the significance level of the tests; 0 means 0.05.
	Alpha float64
	// Holm judges significance on p-values adjusted with Holm's method
	// over each family (the differences from the baseline; the effects),
	// so that the chance of any false "significant" in a family stays
	// below Alpha however many variants there are.
	Holm bool
	// Seed fixes the order of the variants in each round; 0 picks one.
	Seed uint64
	// MaxFailures drops a variant after that many failed requests in a
	// row (the others go on); 0 means 5.
	MaxFailures int
	// Progress, if set, is called after each measuring round.
	Progress func(round int)
}

// Rounds is the most measured rounds a run of c does: Runs, or with
// Precision MaxRuns, defaults applied.
func (c Config) Rounds() int {
	c = c.withDefaults()
	if c.Precision > 0 {
		return c.MaxRuns
	}
	return c.Runs
}

func (c Config) withDefaults() Config {
	if c.Runs <= 0 {
		c.Runs = 20
		if c.Precision > 0 {
			c.Runs = 10
		}
	}
	if c.Warmup == 0 {
		c.Warmup = 1
	}
	if c.MaxRuns <= 0 {
		c.MaxRuns = max(200, c.Runs)
	}
	if c.Level <= 0 || c.Level >= 1 {
		c.Level = 0.95
	}
	if c.Alpha <= 0 || c.Alpha >= 1 {
		c.Alpha = 0.05
	}
	if c.Seed == 0 {
		c.Seed = rand.Uint64() | 1
	}
	if c.MaxFailures <= 0 {
		c.MaxFailures = 5
	}
	return c
}

// runner holds the state of one run.
type runner struct {
	cfg    Config
	rng    *rand.Rand
	res    *Result
	streak []int // failures in a row, per variant
}

// Run measures the variants in interleaved rounds and analyses them. When
// ctx is cancelled it returns the partial result analysed so far together
// with the context's error, for the caller to print it.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Variants) == 0 {
		// One variant is measured alone, with its summary and no
		// difference (page over one protocol).
		return nil, errors.New("comparing: no variant")
	}
	cfg = cfg.withDefaults()
	r := &runner{
		cfg:    cfg,
		rng:    rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		res:    newResult(cfg),
		streak: make([]int, len(cfg.Variants)),
	}
	before := machine.Read()
	err := r.loop(ctx)
	if st, ok := machine.Between(before, machine.Read()); ok {
		r.res.Steal = &st
	}
	r.res.analyse(cfg)
	return r.res, err
}

func (r *runner) loop(ctx context.Context) error {
	for w := 0; w < r.cfg.Warmup; w++ {
		if err := r.round(ctx, 0); err != nil {
			return err
		}
	}
	limit := r.cfg.Rounds()
	for round := 1; round <= limit; round++ {
		if err := r.round(ctx, round); err != nil {
			return err
		}
		r.res.Rounds = round
		if r.cfg.Progress != nil {
			r.cfg.Progress(round)
		}
		if r.cfg.Precision > 0 && round >= r.cfg.Runs && r.precise() {
			r.res.Stop = StopPrecision
			return nil
		}
	}
	r.res.Stop = StopRuns
	if r.cfg.Precision > 0 {
		r.res.Stop = StopMaxRuns
	}
	return nil
}

// round runs every live variant once, in a fresh random order so that no
// variant always follows the same other one (position bias: caches,
// timers, the server's own rhythm). Round 0 is a warm-up.
func (r *runner) round(ctx context.Context, round int) error {
	order := r.rng.Perm(len(r.cfg.Variants))
	pos := 0 // counts every attempt, failed ones too: they took their turn
	for _, i := range order {
		v := &r.res.Variants[i]
		if v.Dropped != "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			r.res.Stop = StopInterrupted
			return err
		}
		s, err := measure(ctx, r.cfg.Variants[i].Sampler)
		pos++
		if err != nil {
			if ctx.Err() != nil {
				r.res.Stop = StopInterrupted
				return ctx.Err()
			}
			if ferr := r.fail(i, round, err); ferr != nil {
				r.res.Stop = StopBaselineFailed
				return ferr
			}
			continue
		}
		r.streak[i] = 0
		if round > 0 {
			s.Round, s.Order = round, pos-1
			v.Samples = append(v.Samples, s)
		}
	}
	return nil
}

// fail counts a failed request. A variant that fails in the warm-up
// (round 0), or too often in a row, is dropped, so that a server without
// HTTP/3 or resumption costs one attempt, not a whole run of timeouts;
// the run fails only when the baseline itself cannot be measured.
func (r *runner) fail(i, round int, err error) error {
	v := &r.res.Variants[i]
	v.Errors[err.Error()]++
	r.streak[i]++
	switch {
	case round == 0:
		v.Dropped = fmt.Sprintf("failed in the warm-up: %v", err)
	case r.streak[i] >= r.cfg.MaxFailures && r.streak[i] == 1:
		v.Dropped = fmt.Sprintf("a request failed: %v", err) // MaxFailures 1: the first failure drops it
	case r.streak[i] >= r.cfg.MaxFailures:
		v.Dropped = fmt.Sprintf("%d requests in a row failed: %v", r.streak[i], err)
	default:
		return nil
	}
	v.Err = err
	if i == 0 {
		return fmt.Errorf("measuring the baseline %w", &VariantError{Key: v.Key, Err: err})
	}
	return nil
}

// VariantError is the error that dropped a variant, with the variant, so
// that a hint can speak of its TLS version or protocol.
type VariantError struct {
	Key Key
	Err error
}

func (e *VariantError) Error() string { return e.Key.Name() + ": " + e.Err.Error() }
func (e *VariantError) Unwrap() error { return e.Err }

// measure runs one sampler and adds the process CPU time it took.
func measure(ctx context.Context, s Sampler) (Sample, error) {
	before := processCPU()
	out, err := s(ctx)
	if err == nil && out.CPU == 0 {
		out.CPU = processCPU() - before
	}
	return out, err
}

// processCPU is the user plus system CPU time of this process so far.
func processCPU() time.Duration {
	user, sys := machine.OwnCPU()
	return user + sys
}

// precise reports whether every live variant's median is known to within
// the configured precision.
func (r *runner) precise() bool {
	for i := range r.res.Variants {
		v := &r.res.Variants[i]
		if v.Dropped != "" {
			continue
		}
		xs := totalsMS(v.Samples)
		if len(xs) == 0 {
			return false
		}
		// Both ends within ±Precision of the median: latencies are
		// skewed, and so is the interval, whose half width can be within
		// 5% while its upper end is 7% above the median.
		sum := summarize(xs, r.cfg.Level)
		within := r.cfg.Precision * sum.Median
		if !sum.MedianCI.Valid() || sum.Median-sum.Lo > within || sum.Hi-sum.Median > within {
			return false
		}
	}
	return true
}
