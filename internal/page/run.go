package page

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/stats"
	"github.com/httpslab/httpslab/internal/transport"
)

// Compare is a run of page loads over one or more protocols.
type Compare struct {
	// Load is the setup every load starts from; its URL is the https://
	// page (or the http:// one when only plain HTTP is loaded), its
	// Protocol is set per load.
	Load Config
	// HTTPURL is the page's plain-HTTP URL for the http protocol; empty
	// means Load.URL on port 80 (compare.HTTPURLOf).
	HTTPURL   string
	Protocols []Protocol
	// Rounds is the number of measured loads per protocol; 0 means 10.
	Rounds int
	// Warmup is the number of unmeasured rounds before them; 0 means 1,
	// a negative value none (for a run on a server that earlier runs
	// have warmed up).
	Warmup int
	// Warm lets each load resume the TLS sessions of the previous load
	// over the same protocol, as a second visit with an empty cache
	// would; otherwise every load starts cold.
	Warm bool
	// Seed fixes the shuffled order of the protocols in each round.
	Seed uint64
	// Progress, if set, is called after each round.
	Progress func(round int)
}

// DefaultRounds is the number of loads per protocol when Compare.Rounds is 0.
const DefaultRounds = 10

// keys are the matrix keys of compare for the protocols, so that its
// effects and names speak of scheme and protocol.
var keys = map[Protocol]compare.Key{
	HTTP:   {Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"},
	HTTP2C: {Scheme: "http", Proto: transport.HTTP2, Conn: "fresh"},
	HTTP1:  {Scheme: "https", Proto: transport.HTTP1, Handshake: "full", Conn: "fresh"},
	HTTP2:  {Scheme: "https", Proto: transport.HTTP2, Handshake: "full", Conn: "fresh"},
	HTTP3:  {Scheme: "https", Proto: transport.HTTP3, Handshake: "full", Conn: "fresh"},
}

// Run loads the page Rounds times over each protocol, interleaved round
// by round in a shuffled order (compare's engine), after Warmup
// unmeasured rounds, and summarises the loads. When ctx is cancelled it
// returns what was measured so far with the context's error.
func (c Compare) Run(ctx context.Context) (*Result, error) {
	if len(c.Protocols) == 0 {
		return nil, errors.New("page: no protocol to load")
	}
	rounds := c.Rounds
	if rounds <= 0 {
		rounds = DefaultRounds
	}
	loads := make([][]*Load, len(c.Protocols))
	var variants []compare.Variant
	for i, p := range c.Protocols {
		cfg, err := c.configFor(p)
		if err != nil {
			return nil, err
		}
		if _, err := cfg.check(); err != nil {
			return nil, err
		}
		variants = append(variants, compare.Variant{Key: keys[p], Sampler: sampler(cfg, &loads[i])})
	}
	res, err := compare.Run(ctx, compare.Config{Variants: variants, Runs: rounds, Warmup: c.Warmup, Seed: c.Seed, Progress: c.Progress})
	if res == nil {
		return nil, err
	}
	out := c.result(res, loads)
	if ferr := res.Failure(); err == nil && ferr != nil {
		err = ferr
	}
	return out, err
}

// configFor is the load setup of protocol p.
func (c Compare) configFor(p Protocol) (Config, error) {
	cfg := c.Load
	cfg.Protocol = p
	cfg.Sessions = nil
	cfg.origins = &originCache{}
	if c.Warm {
		cfg.Sessions = transport.NewSessionCache(0)
	}
	if p == HTTP {
		u := c.HTTPURL
		if u == "" {
			var err error
			if u, err = compare.HTTPURLOf(c.Load.URL); err != nil {
				return cfg, fmt.Errorf("page: the http protocol: %w", err)
			}
		}
		cfg.URL = u
	}
	return cfg, nil
}

// sampler loads the page once per call and keeps each successful load.
func sampler(cfg Config, loads *[]*Load) compare.Sampler {
	return func(ctx context.Context) (compare.Sample, error) {
		ld, err := Run(ctx, cfg)
		if err != nil {
			return compare.Sample{}, err
		}
		*loads = append(*loads, ld)
		hs, app := ld.Handshake, ld.Payload
		return compare.Sample{
			Total:     ld.Duration,
			RTT:       ld.RTT,
			Phases:    map[string]time.Duration{"ttfb": ld.TTFB},
			WireBytes: hs.Read + hs.Written + app.Read + app.Written,
			Proto:     string(cfg.Protocol),
		}, nil
	}
}

// Result is a run of page loads: per protocol, the summary of its loads
// and the median load in full, and the differences between protocols.
type Result struct {
	URL string `json:"url"`
	// Engine is what loaded the page; empty for httpslab's own.
	Engine Engine  `json:"engine,omitempty"`
	Rounds int     `json:"rounds"`
	Warm   bool    `json:"warm"`
	Seed   uint64  `json:"seed"`
	Level  float64 `json:"level"`
	Alpha  float64 `json:"alpha"`
	Stop   string  `json:"stop"`
	// ResponseCost is the modelled browser's processing time per
	// response of httpslab's engine (Config.ResponseCost); zero without
	// the model.
	ResponseCost time.Duration `json:"response_cost_ns,omitempty"`
	// ResponseCostPerMB is the modelled browser's processing time per MB
	// of a response's body (Config.ResponseCostPerMB).
	ResponseCostPerMB time.Duration `json:"response_cost_per_mb_ns,omitempty"`
	// ResponseDelay is the modelled browser's least time from a
	// response's arrival to its processed end (Config.ResponseDelay).
	ResponseDelay time.Duration `json:"response_delay_ns,omitempty"`
	// TightLimit, TightUntil and TightBurstCost are the modelled
	// browser's tight mode (Config.TightLimit, TightUntil,
	// TightBurstCost); zero without it.
	TightLimit     int           `json:"tight_limit,omitempty"`
	TightUntil     time.Duration `json:"tight_until_ns,omitempty"`
	TightBurstCost time.Duration `json:"tight_burst_cost_ns,omitempty"`
	// RTT is compare's median RTT of the run; zero when not measured.
	RTT         time.Duration    `json:"rtt_ns,omitempty"`
	Protocols   []ProtocolResult `json:"protocols"`
	Differences []Difference     `json:"differences"`
}

// ProtocolResult is the loads of one protocol. Times in summaries are
// milliseconds; counts and bytes are medians over the loads.
type ProtocolResult struct {
	Protocol Protocol        `json:"protocol"`
	URL      string          `json:"url"`
	LoadTime compare.Summary `json:"load_ms"`
	TTFB     compare.Summary `json:"ttfb_ms"`
	// Loads are the load times of every measured load, in order, in ms.
	Loads          []float64     `json:"loads_ms"`
	Requests       float64       `json:"requests"`
	Failed         float64       `json:"failed"`
	Conns          float64       `json:"connections"`
	Handshakes     float64       `json:"handshakes"`
	Resumed        float64       `json:"resumed"`
	HandshakeBytes float64       `json:"handshake_bytes"`
	PayloadBytes   float64       `json:"payload_bytes"`
	CPU            time.Duration `json:"cpu_ns"`
	// BrowserCPU is the median over the browser loads of the CPU time
	// all the browser's processes took (Load.BrowserCPU); zero for
	// httpslab's engine.
	BrowserCPU time.Duration  `json:"browser_cpu_ns,omitempty"`
	Errors     map[string]int `json:"errors,omitempty"`
	Dropped    string         `json:"dropped,omitempty"`
	// Median is the load whose time is the median one (the lower of the
	// two middle ones for an even count), with every request.
	Median *Load `json:"median_load,omitempty"`
}

// Difference is how much longer (positive) or shorter one protocol's
// page load time is than another's.
type Difference struct {
	Name string       `json:"name"` // "TLS alone", "multiplexing", "QUIC", or "h1 → h3"
	From Protocol     `json:"from"`
	To   Protocol     `json:"to"`
	Diff compare.Diff `json:"diff"`
}

// effectNames name the difference between two neighbouring protocols.
var effectNames = map[[2]Protocol]string{
	{HTTP, HTTP1}: "TLS alone", {HTTP1, HTTP2}: "multiplexing", {HTTP2, HTTP3}: "QUIC",
	{HTTP, HTTP2C}: "multiplexing",
}

// result turns compare's result and the loads into the page's.
func (c Compare) result(res *compare.Result, loads [][]*Load) *Result {
	out := &Result{URL: c.Load.URL, Engine: c.Load.Engine, ResponseCost: c.Load.ResponseCost, ResponseCostPerMB: c.Load.ResponseCostPerMB, ResponseDelay: c.Load.ResponseDelay,
		TightLimit: c.Load.TightLimit, TightUntil: c.Load.TightUntil, TightBurstCost: c.Load.TightBurstCost, Rounds: res.Rounds, Warm: c.Warm, Seed: res.Seed, Level: res.Level, Alpha: res.Alpha, Stop: res.Stop,
		RTT: res.RTT, Protocols: []ProtocolResult{}, Differences: []Difference{}}
	for i, v := range res.Variants {
		p := c.Protocols[i]
		cfg, _ := c.configFor(p)
		pr := ProtocolResult{Protocol: p, URL: cfg.URL, LoadTime: v.Total, TTFB: v.Phases["ttfb"], CPU: v.CPU, Errors: v.Errors,
			Dropped: v.Dropped, Loads: []float64{}}
		// The loads of the warm-up round come first; the measured ones,
		// one per sample, last.
		measured := loads[i][max(len(loads[i])-len(v.Samples), 0):]
		pr.summarise(measured)
		out.Protocols = append(out.Protocols, pr)
	}
	for i := 1; i < len(c.Protocols); i++ {
		from, to := c.Protocols[i-1], c.Protocols[i]
		d := res.Between(i-1, i)
		if d == nil {
			continue
		}
		name, ok := effectNames[[2]Protocol{from, to}]
		if !ok {
			name = string(from) + " → " + string(to)
		}
		out.Differences = append(out.Differences, Difference{Name: name, From: from, To: to, Diff: *d})
	}
	return out
}

// summarise fills the medians of the loads and picks the median load.
func (pr *ProtocolResult) summarise(loads []*Load) {
	if len(loads) == 0 {
		return
	}
	med := func(of func(*Load) float64) float64 {
		xs := make([]float64, len(loads))
		for i, ld := range loads {
			xs[i] = of(ld)
		}
		return stats.Median(xs)
	}
	pr.Requests = med(func(l *Load) float64 { return float64(len(l.Requests)) })
	pr.Failed = med(func(l *Load) float64 { return float64(l.Failed) })
	pr.Conns = med(func(l *Load) float64 { return float64(len(l.Conns)) })
	pr.Handshakes = med(func(l *Load) float64 { return float64(l.handshakes()) })
	pr.Resumed = med(func(l *Load) float64 { return float64(l.Resumed) })
	pr.HandshakeBytes = med(func(l *Load) float64 { return float64(l.Handshake.Read + l.Handshake.Written) })
	pr.PayloadBytes = med(func(l *Load) float64 { return float64(l.Payload.Read + l.Payload.Written) })
	pr.BrowserCPU = time.Duration(med(func(l *Load) float64 {
		var sum time.Duration
		for _, d := range l.BrowserCPU {
			sum += d
		}
		return float64(sum)
	}))
	for _, ld := range loads {
		pr.Loads = append(pr.Loads, float64(ld.Duration)/float64(time.Millisecond))
	}
	byTime := slices.Clone(loads)
	slices.SortStableFunc(byTime, func(a, b *Load) int { return int(a.Duration - b.Duration) })
	pr.Median = byTime[(len(byTime)-1)/2]
}

// handshakes counts the TLS or QUIC handshakes of the load.
func (ld *Load) handshakes() int {
	n := 0
	for _, c := range ld.Conns {
		if c.TLSVersion != "" {
			n++
		}
	}
	return n
}
