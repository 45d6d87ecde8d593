package report

// Reading a bench document back into the result it describes, for merge
// and for --fail-if on results read back: the inverse of NewBenchJSON,
// for what the document holds. What it does not hold is left zero: the
// -n and --requests-per-conn asked, the error samples (so no hint), the
// server processes' own details beyond their times, the steal ticks.

import (
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// Result returns the bench result the document describes. It fails on a
// value no bench run writes: an unknown protocol, connection mode, TLS
// version, cipher suite or group, a status that is not a number, a
// negative or overflowing time, a histogram that does not decode to
// bench's range.
func (j *BenchJSON) Result() (*load.Result, error) {
	cfg, err := j.config()
	if err != nil {
		return nil, err
	}
	r := &load.Result{Config: cfg, Start: j.Run.StartedAt, Requests: j.Requests, Errors: j.Errors, Bytes: j.Bytes,
		Status: map[int]int64{}, ErrorCounts: map[string]int64{}, Handshakes: j.Handshakes, Resumed: j.Resumed,
		Connections: j.Connections, DialErrors: j.DialErrors, Late: j.Late, Dropped: j.Dropped,
		ServerStreams: j.ServerStreams, Interrupted: j.Interrupted, Client: j.Client}
	for _, v := range []*int64{&r.Requests, &r.Errors, &r.Bytes, &r.Handshakes, &r.Resumed, &r.Connections,
		&r.DialErrors, &r.Late, &r.Dropped} {
		if *v < 0 {
			return nil, fmt.Errorf("bench result: a count of %d", *v)
		}
	}
	if r.Elapsed, err = seconds("elapsed_s", j.ElapsedSeconds); err != nil {
		return nil, err
	}
	if r.MaxLag, err = seconds("max_lag_us", float64(j.MaxLagMicros)/1e6); err != nil {
		return nil, err
	}
	for code, n := range j.Status {
		c, err := strconv.Atoi(code)
		if err != nil || c < 0 || c > 999 {
			return nil, fmt.Errorf("bench result: status %q is not an HTTP status", Escape(code))
		}
		r.Status[c] = n
	}
	for msg, n := range j.ErrorMessages {
		r.ErrorCounts[msg] = n
	}
	if j.SendRate > 0 && r.Requests+r.Errors >= 2 {
		// The sends' span is not in the document, its rate is: a span
		// that gives the same rate.
		r.Sent = r.Requests + r.Errors
		r.LastSend, err = seconds("send_rate_per_s", float64(r.Sent-1)/j.SendRate)
		if err != nil {
			return nil, err
		}
	}
	if m := j.Merged; m != nil {
		r.Merged = &load.Merged{Results: m.Results, Workers: m.Workers, Hosts: m.Hosts, StartSkew: time.Duration(m.StartSkewNS),
			ClockCorrected: m.ClockCorrected, Dropped: m.DroppedValues}
	}
	steps := []func(*load.Result) error{j.tlsRows, j.keyShares, j.latency, j.cpu, j.runInfo, j.intervals}
	for _, step := range steps {
		if err := step(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// seconds converts a document's seconds to a duration, refusing a
// negative one or one past time.Duration's range.
func seconds(field string, s float64) (time.Duration, error) {
	if s < 0 || s > math.MaxInt64/1e9 || math.IsNaN(s) {
		return 0, fmt.Errorf("bench result: %s %g is out of range", field, s)
	}
	return time.Duration(math.Round(s * 1e9)), nil
}

func (j *BenchJSON) config() (load.Config, error) {
	p, err := transport.ParseProtocol(j.Protocol)
	if err != nil {
		return load.Config{}, fmt.Errorf("bench result: %w", err)
	}
	mode, err := transport.ParseConnMode(j.Mode)
	if err != nil {
		return load.Config{}, fmt.Errorf("bench result: %w", err)
	}
	if j.Conns < 0 || j.Streams < 0 || j.Pipeline < 0 || j.Rate < 0 || len(j.Target) == 0 {
		return load.Config{}, fmt.Errorf("bench result: %d targets, %d connections, %d streams, pipeline %d, rate %g",
			len(j.Target), j.Conns, j.Streams, j.Pipeline, j.Rate)
	}
	cfg := load.Config{Protocol: p, Mode: mode, Conns: j.Conns, Streams: j.Streams, Pipeline: j.Pipeline, Rate: j.Rate}
	for _, u := range j.Target {
		cfg.Targets = append(cfg.Targets, load.Target{URL: u})
	}
	return cfg, nil
}

func (j *BenchJSON) tlsRows(r *load.Result) error {
	for _, t := range j.TLS {
		v, err := versionID(t.Version)
		if err != nil {
			return err
		}
		c, err := cipherID(t.Cipher)
		if err != nil {
			return err
		}
		row := load.TLSCount{Version: v, Cipher: c, Full: t.Full, Resumed: t.Resumed}
		if t.Group != "" {
			if row.Curve, err = groupID(t.Group); err != nil {
				return err
			}
		}
		r.TLS = append(r.TLS, row)
	}
	return nil
}

func (j *BenchJSON) keyShares(r *load.Result) error {
	k := j.KeyShares
	if k == nil {
		return nil
	}
	u := load.KeyShareUse{FirstVisit: k.Visit == "first", HelloRetries: k.HelloRetries}
	var err error
	for _, l := range []struct {
		names []string
		ids   *[]tls.CurveID
	}{{k.Offered, &u.Offered}, {k.Shares, &u.Shares}, {k.LearnedOffered, &u.LearnedOffered}, {k.LearnedShares, &u.LearnedShares}} {
		for _, name := range l.names {
			id, err := groupID(name)
			if err != nil {
				return err
			}
			*l.ids = append(*l.ids, id)
		}
	}
	if k.Learned != "" {
		u.Learned, err = groupID(k.Learned)
	}
	r.KeyShares = u
	return err
}

// latency decodes the phases' histograms; a phase the document leaves
// out is empty, as a run in which it did not happen has it.
func (j *BenchJSON) latency(r *load.Result) error {
	l := &r.Latency
	for name, h := range map[string]**hdrhistogram.Histogram{"connect": &l.Connect, "tls": &l.TLS, "waiting": &l.Waiting,
		"total": &l.Total, "service": &l.Service} {
		*h = load.NewHistogram()
		hist, ok := j.Latency[name]
		if !ok {
			continue
		}
		dec, err := load.DecodeHistogram(hist.HDR)
		if err != nil {
			return fmt.Errorf("bench result: latency_us %s: %w", name, err)
		}
		*h = dec
	}
	return nil
}

func (j *BenchJSON) cpu(r *load.Result) error {
	c := j.CPU
	cpu := load.CPU{ClientCores: c.ClientCores, ClientQuota: c.ClientQuota, ServerMeasured: c.Server,
		NotListening: c.ServerNotListening, Wall: r.Elapsed}
	for _, t := range []struct {
		name string
		s    float64
		d    *time.Duration
	}{{"client_user_s", c.ClientUser, &cpu.ClientUser}, {"client_system_s", c.ClientSystem, &cpu.ClientSystem},
		{"server_user_s", c.ServerUser, &cpu.ServerUser}, {"server_system_s", c.ServerSystem, &cpu.ServerSystem}} {
		d, err := seconds(t.name, t.s)
		if err != nil {
			return err
		}
		*t.d = d
	}
	if c.Others != nil {
		d, err := seconds("others_s", *c.Others)
		if err != nil {
			return err
		}
		cpu.Others, cpu.OthersMeasured = d, true
	}
	if b := c.ServerBusiest; b != nil {
		d, err := seconds("server_busiest cpu_s", b.CPU)
		if err != nil {
			return err
		}
		cpu.ServerBusiest = load.ProcBusy{PID: b.PID, CPU: d, Cores: b.Cores}
	}
	r.CPU = cpu
	return nil
}

func (j *BenchJSON) runInfo(r *load.Result) error {
	run := j.Run
	info := load.RunInfo{Host: run.Host, ClockSource: run.ClockSource, ConfigHash: run.ConfigHash}
	if w := run.Worker; w != nil {
		if w.Count < 1 || w.Index < 0 || w.Index >= w.Count {
			return fmt.Errorf("bench result: worker %d of %d", w.Index, w.Count)
		}
		info.Worker = load.Worker{Index: w.Index, Count: w.Count}
	}
	if run.ClockOffset != nil {
		d := time.Duration(*run.ClockOffset)
		info.ClockOffset = &d
	}
	r.Run = info
	return nil
}

func (j *BenchJSON) intervals(r *load.Result) error {
	for k, iv := range j.Intervals {
		// bench writes every second of the run, in order.
		if iv.OffsetSeconds != int64(k) || iv.Requests < 0 || iv.Errors < 0 {
			return fmt.Errorf("bench result: interval %d at %d s with %d requests, %d errors", k, iv.OffsetSeconds, iv.Requests, iv.Errors)
		}
		length, err := seconds("length_s", iv.LengthSeconds)
		if err != nil {
			return err
		}
		h := iv.HDR
		r.Intervals = append(r.Intervals, load.Interval{Offset: time.Duration(iv.OffsetSeconds) * time.Second,
			Start: iv.Start, Length: length, Partial: iv.Partial, Requests: iv.Requests, Errors: iv.Errors,
			Latency: load.IntervalLatency{Connect: h.Connect, TLS: h.TLS, Waiting: h.Waiting, Total: h.Total, Service: h.Service}})
	}
	return nil
}

// versionID reads a TLS version as tls.VersionName writes it.
func versionID(name string) (uint16, error) {
	for v := uint16(0x0300); v <= tls.VersionTLS13; v++ { // from SSL 3.0
		if tls.VersionName(v) == name {
			return v, nil
		}
	}
	return hexID("TLS version", name)
}

// cipherID reads a cipher suite as tls.CipherSuiteName writes it.
func cipherID(name string) (uint16, error) {
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if cs.Name == name {
			return cs.ID, nil
		}
	}
	return hexID("cipher suite", name)
}

// hexID reads the 0x%04X that crypto/tls writes for an unnamed version
// or suite.
func hexID(what, name string) (uint16, error) {
	if v, err := strconv.ParseUint(strings.TrimPrefix(name, "0x"), 16, 16); err == nil && strings.HasPrefix(name, "0x") {
		return uint16(v), nil
	}
	return 0, fmt.Errorf("bench result: unknown %s %q", what, Escape(name))
}

// groupID reads a key-exchange group as transport.GroupName writes it:
// the registry's name, Go's for a group the registry named later, or
// CurveID(n).
func groupID(name string) (tls.CurveID, error) {
	if ids, err := transport.ParseGroups(name); err == nil && len(ids) == 1 {
		return ids[0], nil
	}
	var n uint16
	if _, err := fmt.Sscanf(name, "CurveID(%d)", &n); err == nil && transport.GroupName(tls.CurveID(n)) == name {
		return tls.CurveID(n), nil
	}
	// The registry's groups Go cannot offer (x448, ffdhe2048, ...) have
	// small numbers.
	for id := tls.CurveID(0); id < 1024; id++ {
		if transport.GroupName(id) == name {
			return id, nil
		}
	}
	return 0, fmt.Errorf("bench result: unknown key-exchange group %q", Escape(name))
}

// ReadBench reads a bench --json document (as Read does: its schema
// checked first) and returns the result it describes.
func ReadBench(rd io.Reader) (*load.Result, error) {
	doc, err := Read(rd)
	if err != nil {
		return nil, err
	}
	j, ok := doc.Result.(*BenchJSON)
	if !ok {
		return nil, fmt.Errorf("a %s result, not bench's", doc.Kind)
	}
	return j.Result()
}
