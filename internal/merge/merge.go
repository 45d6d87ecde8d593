// Package merge combines the bench results of the workers of one run
// (bench --workers N, each on its own machine or process) into one
// result, exactly: counts are summed, latency histograms merged bucket by
// bucket (HdrHistogram's merge, the values it could not hold counted and
// reported), and each second of the run lined up by wall-clock time, so
// that workers that started a few hundred milliseconds apart add up
// second by second. Results of different configurations, a missing
// worker or a worker given twice are refused. The merged result is a
// load.Result, which bench's renderers and --fail-if read as they read a
// run's own.
package merge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
)

// Input is one result to merge and the name it goes by (its file).
type Input struct {
	Name   string
	Result *load.Result
}

// Error is a set of results merge refuses; Hint says what to do.
type Error struct{ Msg, Hint string }

func (e *Error) Error() string { return e.Msg }

// Hint returns what to do about an error of Merge, or "".
func Hint(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}

// Merge returns the results of in combined into one.
func Merge(in []Input) (*load.Result, error) {
	if err := check(in); err != nil {
		return nil, err
	}
	out := sum(in)
	t := timeline(in)
	if t.skew > maxSkew {
		return nil, &Error{Msg: fmt.Sprintf("the results started %s apart: not the workers of one run", t.skew.Round(time.Second)),
			Hint: "merge the results of one run, whose workers started together (bench --start-at)"}
	}
	out.Start, out.Elapsed = t.start, t.end.Sub(t.start)
	out.CPU.Wall = out.Elapsed
	out.Merged.Dropped = mergeLatency(out, in)
	dropped, err := mergeIntervals(out, in, t)
	if err != nil {
		return nil, err
	}
	out.Merged.Dropped += dropped
	out.Merged.StartSkew, out.Merged.ClockCorrected = t.skew, t.corrected
	return out, nil
}

// check refuses what cannot be merged: nothing, results of different
// configurations, and workers of a run that are missing or given twice.
func check(in []Input) error {
	if len(in) == 0 {
		return &Error{Msg: "no result to merge", Hint: "give the --json results of bench, one per worker"}
	}
	first := in[0]
	for _, x := range in {
		if x.Result.Run.ConfigHash == "" {
			return &Error{Msg: fmt.Sprintf("%s has no config_hash", x.Name),
				Hint: "give results of bench --json from this httpslab version"}
		}
		if err := sameConfig(first, x); err != nil {
			return err
		}
	}
	return checkWorkers(in)
}

// sameConfig refuses two results of different configurations: by their
// configuration's hash, and by the settings the document shows, so that
// a hash copied by hand does not merge different runs.
func sameConfig(a, b Input) error {
	hint := "merge the results of one run: the workers of one bench command line (--workers N), whose config_hash is the same"
	ha, hb := a.Result.Run.ConfigHash, b.Result.Run.ConfigHash
	if ha != hb {
		return &Error{Msg: fmt.Sprintf("%s and %s are results of different configurations (config_hash %s and %s)",
			a.Name, b.Name, ha, hb), Hint: hint}
	}
	ca, cb := a.Result.Config, b.Result.Config
	urls := func(c load.Config) []string {
		var u []string
		for _, t := range c.Targets {
			u = append(u, t.URL)
		}
		return u
	}
	switch {
	case ca.Protocol != cb.Protocol, ca.Mode != cb.Mode, ca.Streams != cb.Streams, ca.Pipeline != cb.Pipeline,
		!slices.Equal(urls(ca), urls(cb)), (ca.Rate > 0) != (cb.Rate > 0):
		return &Error{Msg: fmt.Sprintf("%s and %s have the same config_hash but different settings (protocol, connection mode, streams, pipeline, targets or model)",
			a.Name, b.Name), Hint: hint}
	}
	return nil
}

// checkWorkers refuses a run's workers given twice or missing, and a mix
// of workers and runs on their own.
func checkWorkers(in []Input) error {
	count := in[0].Result.Run.Worker.Count
	seen := map[int]string{}
	runs := map[string]string{}
	for _, x := range in {
		w := x.Result.Run.Worker
		if w.Single() != in[0].Result.Run.Worker.Single() || !w.Single() && w.Count != count {
			return &Error{Msg: fmt.Sprintf("%s is %s, %s %s", in[0].Name, workerName(in[0].Result.Run.Worker), x.Name, workerName(w)),
				Hint: "merge the results of the workers of one run, or of runs on their own"}
		}
		if w.Single() {
			// A run on its own is its host and its start: the same file
			// given twice, or a copy of it, would count its requests twice.
			at := x.Result.Start.UTC().Format(time.RFC3339Nano)
			if other, ok := runs[x.Result.Run.Host+" "+at]; ok {
				return &Error{Msg: fmt.Sprintf("%s and %s are the same run (host %s, started at %s)", other, x.Name, x.Result.Run.Host, at),
					Hint: "give each run's result once"}
			}
			runs[x.Result.Run.Host+" "+at] = x.Name
			continue
		}
		if other, ok := seen[w.Index]; ok {
			return &Error{Msg: fmt.Sprintf("worker %d of %d appears twice: %s and %s", w.Index, w.Count, other, x.Name),
				Hint: "give each worker's result once"}
		}
		seen[w.Index] = x.Name
	}
	if in[0].Result.Run.Worker.Single() {
		return nil
	}
	var missing []string
	for i := range count {
		if _, ok := seen[i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	switch {
	case len(missing) == 1:
		return &Error{Msg: fmt.Sprintf("worker %s of %d is missing", missing[0], count), Hint: missingHint}
	case len(missing) > 1:
		return &Error{Msg: fmt.Sprintf("workers %s of %d are missing", strings.Join(missing, ", "), count), Hint: missingHint}
	}
	return nil
}

const missingHint = "give every worker's --json result (indices 0 to N-1); a worker that started too late for --start-at wrote none: run again"

func workerName(w load.Worker) string {
	if w.Single() {
		return "a run on its own"
	}
	return fmt.Sprintf("worker %d of %d", w.Index, w.Count)
}

// sum adds up the counts, the status and error tables, the TLS summary
// and the CPU times; the configuration's totals are the workers' shares
// added up.
func sum(in []Input) *load.Result {
	first := in[0].Result
	out := &load.Result{Config: first.Config, Status: map[int]int64{}, ErrorCounts: map[string]int64{},
		Client: first.Client, KeyShares: first.KeyShares, Merged: &load.Merged{Results: len(in)}}
	out.Config.Conns, out.Config.Rate, out.Config.Requests = 0, 0, 0
	out.KeyShares.HelloRetries = 0
	tlsIdx := map[load.TLSCount]int{}
	hosts := map[string]bool{}
	var sendRate float64
	for _, x := range in {
		r := x.Result
		out.Config.Conns += r.Config.Conns
		out.Config.Rate += r.Config.Rate
		out.Config.Requests += r.Config.Requests
		for _, p := range []struct{ to, from *int64 }{{&out.Requests, &r.Requests}, {&out.Errors, &r.Errors},
			{&out.Bytes, &r.Bytes}, {&out.Handshakes, &r.Handshakes}, {&out.Resumed, &r.Resumed},
			{&out.Connections, &r.Connections}, {&out.DialErrors, &r.DialErrors}, {&out.Late, &r.Late},
			{&out.Dropped, &r.Dropped}, {&out.Sent, &r.Sent}, {&out.KeyShares.HelloRetries, &r.KeyShares.HelloRetries}} {
			*p.to += *p.from
		}
		for code, n := range r.Status {
			out.Status[code] += n
		}
		for msg, n := range r.ErrorCounts {
			out.ErrorCounts[msg] += n
		}
		for _, t := range r.TLS {
			key := load.TLSCount{Version: t.Version, Cipher: t.Cipher, Curve: t.Curve}
			i, ok := tlsIdx[key]
			if !ok {
				i = len(out.TLS)
				tlsIdx[key] = i
				out.TLS = append(out.TLS, key)
			}
			out.TLS[i].Full += t.Full
			out.TLS[i].Resumed += t.Resumed
		}
		out.MaxLag = max(out.MaxLag, r.MaxLag)
		if s := r.ServerStreams; s != nil && (out.ServerStreams == nil || *s < *out.ServerStreams) {
			out.ServerStreams = s
		}
		out.Interrupted = out.Interrupted || r.Interrupted
		sendRate += r.SendRate()
		hosts[r.Run.Host] = true
		addCPU(&out.CPU, r.CPU)
	}
	if out.Sent >= 2 && sendRate > 0 {
		// The merged sends' rate is the workers' rates added up.
		out.FirstSend, out.LastSend = 0, time.Duration(float64(out.Sent-1)/sendRate*float64(time.Second))
	}
	m := out.Merged
	m.Hosts = slices.Sorted(maps.Keys(hosts))
	if w := first.Run.Worker; !w.Single() {
		m.Workers = w.Count
	}
	out.Run = load.RunInfo{Host: strings.Join(m.Hosts, ","), ClockSource: first.Run.ClockSource, ConfigHash: first.Run.ConfigHash}
	for _, x := range in {
		if x.Result.Run.ClockSource != out.Run.ClockSource {
			out.Run.ClockSource = "none"
		}
	}
	return out
}

// addCPU adds a worker's client CPU to the merged one. The server's is
// not added: each worker measured the processes of its own machine (or
// the same server several times over).
func addCPU(to *load.CPU, c load.CPU) {
	to.ClientUser += c.ClientUser
	to.ClientSystem += c.ClientSystem
	to.ClientCores += c.ClientCores
	to.ClientQuota += c.ClientQuota
	if c.ServerMeasured {
		to.ServerError = "each worker measured its own machine's server processes; see the workers' results"
	}
}

// mergeLatency merges the phases' histograms; it returns the values the
// merges dropped.
func mergeLatency(out *load.Result, in []Input) int64 {
	l := &out.Latency
	*l = load.Latency{Connect: load.NewHistogram(), TLS: load.NewHistogram(), Waiting: load.NewHistogram(),
		Total: load.NewHistogram(), Service: load.NewHistogram()}
	var dropped int64
	for _, x := range in {
		r := x.Result.Latency
		for _, p := range []struct{ to, from *hdrhistogram.Histogram }{{l.Connect, r.Connect}, {l.TLS, r.TLS},
			{l.Waiting, r.Waiting}, {l.Total, r.Total}, {l.Service, r.Service}} {
			if p.from != nil {
				dropped += p.to.Merge(p.from)
			}
		}
	}
	return dropped
}
