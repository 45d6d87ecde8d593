package merge

import (
	"fmt"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
)

// maxSkew bounds how far apart the results may have started: the
// workers of one run start within seconds of each other, and results
// hours apart (a wrong clock, a result of another day) would fill the
// merged run with empty seconds.
const maxSkew = time.Hour

// span is the merged run's time: from the earliest start to the latest
// end, by the hosts' clocks corrected by their offsets when every host
// knew its offset.
type span struct {
	start, end time.Time
	skew       time.Duration
	corrected  bool
	offsets    []time.Duration // per input, subtracted from its times
}

func timeline(in []Input) span {
	t := span{corrected: true, offsets: make([]time.Duration, len(in))}
	for _, x := range in {
		t.corrected = t.corrected && x.Result.Run.ClockOffset != nil
	}
	var latest time.Time
	for i, x := range in {
		r := x.Result
		if t.corrected {
			t.offsets[i] = *r.Run.ClockOffset
		}
		s := r.Start.Add(-t.offsets[i])
		if i == 0 || s.Before(t.start) {
			t.start = s
		}
		if i == 0 || s.After(latest) {
			latest = s
		}
		if e := s.Add(r.Elapsed); i == 0 || e.After(t.end) {
			t.end = e
		}
	}
	t.skew = latest.Sub(t.start)
	return t
}

// mergeIntervals lines the workers' seconds up by wall-clock time: a
// worker's second goes to the merged second its start is nearest to, so
// that workers started up to half a second apart add up second by second
// (the start skew says how far apart they were). It returns the values
// the histogram merges dropped.
func mergeIntervals(out *load.Result, in []Input, t span) (int64, error) {
	// shift[i] is the merged second of input i's first second; byOffset
	// its seconds by offset.
	shift := make([]int64, len(in))
	byOffset := make([]map[int64]load.Interval, len(in))
	n := int64(0)
	for i, x := range in {
		r := x.Result
		d := r.Start.Add(-t.offsets[i]).Sub(t.start)
		shift[i] = int64(math.Round(d.Seconds()))
		byOffset[i] = map[int64]load.Interval{}
		for _, iv := range r.Intervals {
			k := int64(iv.Offset / time.Second)
			byOffset[i][k] = iv
			n = max(n, shift[i]+k+1)
		}
	}
	phases := phaseNames(in)
	scratch := map[string]*hdrhistogram.Histogram{}
	for _, p := range phases {
		scratch[p] = load.NewHistogram()
	}
	var dropped int64
	empty := load.EncodeHistogram(load.NewHistogram())
	for j := range n {
		m := load.Interval{Offset: time.Duration(j) * time.Second, Start: t.start.Add(time.Duration(j) * time.Second),
			Length: time.Second}
		for i := range in {
			iv, ok := byOffset[i][j-shift[i]]
			if !ok {
				continue
			}
			m.Requests += iv.Requests
			m.Errors += iv.Errors
			m.Partial = m.Partial || iv.Partial
			d, err := mergePhases(scratch, iv.Latency.Phases())
			if err != nil {
				return 0, fmt.Errorf("%s: the second at %d s: %w", in[i].Name, j-shift[i], err)
			}
			dropped += d
		}
		if rest := t.end.Sub(m.Start); rest < time.Second {
			m.Length, m.Partial = max(rest, time.Nanosecond), true
		}
		m.Latency = encodePhases(scratch, empty)
		out.Intervals = append(out.Intervals, m)
	}
	return dropped, nil
}

// phaseNames are the phases every merged second holds: service in the
// open model.
func phaseNames(in []Input) []string {
	p := []string{"connect", "tls", "waiting", "total"}
	if in[0].Result.Config.Rate > 0 {
		p = append(p, "service")
	}
	return p
}

// mergePhases adds a second's encoded histograms to scratch.
func mergePhases(scratch map[string]*hdrhistogram.Histogram, enc map[string]string) (int64, error) {
	var dropped int64
	for name, h := range scratch {
		e, ok := enc[name]
		if !ok {
			continue
		}
		d, err := load.MergeEncoded(h, e)
		if err != nil {
			return 0, fmt.Errorf("%s histogram: %w", name, err)
		}
		dropped += d
	}
	return dropped, nil
}

// encodePhases encodes scratch's histograms and empties them; an empty
// one takes empty's encoding, made once.
func encodePhases(scratch map[string]*hdrhistogram.Histogram, empty string) load.IntervalLatency {
	enc := map[string]string{}
	for name, h := range scratch {
		enc[name] = empty
		if h.TotalCount() > 0 {
			enc[name] = load.EncodeHistogram(h)
			h.Reset()
		}
	}
	return load.IntervalLatency{Connect: enc["connect"], TLS: enc["tls"], Waiting: enc["waiting"], Total: enc["total"],
		Service: enc["service"]}
}
