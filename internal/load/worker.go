package load

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/transport"
)

// A run can be one worker of many: several processes, on one machine or
// many, each loading the same server with its share of the run, started
// at the same wall-clock time, whose results `httpslab merge` combines.
// The configuration a worker is given holds the totals (-n, --rate, -c
// across all workers) and its Worker; Run takes its share of each.

// IndexEnv is the environment variable a Kubernetes Indexed Job sets to
// each pod's completion index, which a worker takes as its index.
const IndexEnv = "JOB_COMPLETION_INDEX"

// DefaultStartGrace is how late a worker may start after its StartAt.
const DefaultStartGrace = time.Second

// Worker is a run's place among the workers that share it; the zero
// value (and a Count of 1) is a run on its own.
type Worker struct {
	Index int // 0 to Count-1
	Count int // the number of workers
}

// Single reports whether the run is on its own, not one of several.
func (w Worker) Single() bool { return w.Count <= 1 }

// NewWorker returns the worker of index among count, as bench's
// --workers and --index give them; index "" takes env, the value of
// IndexEnv, which a run on its own (count 0 or 1) leaves aside.
func NewWorker(count int, index, env string) (Worker, error) {
	if count < 0 {
		return Worker{}, &WorkerError{Msg: fmt.Sprintf("--workers %d: want 1 or more", count)}
	}
	if count <= 1 {
		if index != "" && index != "0" {
			return Worker{}, &WorkerError{Msg: fmt.Sprintf("--index %s without --workers: a run on its own is worker 0", index),
				Hint: "give --workers N, the number of workers that share the run"}
		}
		return Worker{}, nil
	}
	name := "--index"
	if index == "" {
		index, name = env, IndexEnv
	}
	if index == "" {
		return Worker{}, &WorkerError{Msg: fmt.Sprintf("--workers %d without --index: which worker is this one?", count),
			Hint: fmt.Sprintf("give --index I (0 to %d), or set %s as a Kubernetes Indexed Job does", count-1, IndexEnv)}
	}
	i, err := strconv.Atoi(strings.TrimSpace(index))
	if err != nil || i < 0 || i >= count {
		return Worker{}, &WorkerError{Msg: fmt.Sprintf("%s %q: want an index from 0 to %d (--workers %d)", name, index, count-1, count)}
	}
	return Worker{Index: i, Count: count}, nil
}

// WorkerError is a configuration of workers that cannot run: an index
// out of range, or a total too small to give every worker a share; Hint
// says what to do, or is "".
type WorkerError struct{ Msg, Hint string }

func (e *WorkerError) Error() string { return e.Msg }

// Plan is a run's part in a run shared by several workers, as bench's
// flags give it; the zero value is a run on its own, started at once.
type Plan struct {
	Workers    int           // --workers: the number of workers; 0 or 1 alone
	Index      string        // --index; "": the value of IndexEnv
	StartAt    string        // --start-at: RFC 3339 or +DURATION; "": at once
	StartGrace time.Duration // --start-grace; 0: DefaultStartGrace
}

// Apply sets cfg's Worker, StartAt and StartGrace from p (a relative
// start counts from now) and checks that every worker gets a share of
// cfg's totals; its errors are WorkerErrors.
func (p Plan) Apply(cfg *Config, now time.Time) error {
	w, err := NewWorker(p.Workers, p.Index, os.Getenv(IndexEnv))
	if err != nil {
		return err
	}
	if p.StartGrace < 0 {
		return &WorkerError{Msg: fmt.Sprintf("--start-grace %s: want a positive duration", p.StartGrace)}
	}
	var at time.Time
	if p.StartAt != "" {
		if at, err = ParseStartAt(p.StartAt, now); err != nil {
			return &WorkerError{Msg: "--start-at: " + err.Error(), Hint: "give every worker the same time, e.g. --start-at $(date -u -d +30sec +%FT%TZ)"}
		}
	}
	c := *cfg
	c.Worker, c.StartAt, c.StartGrace = w, at, p.StartGrace
	if _, err := c.withDefaults().share(); err != nil {
		return err
	}
	*cfg = c
	return nil
}

// Hint says what to do about an error of Run or Plan.Apply, or "".
func Hint(err error) string {
	var werr *WorkerError
	var late *LateError
	switch {
	case errors.As(err, &werr):
		return werr.Hint
	case errors.As(err, &late):
		return late.Hint()
	case errors.As(err, new(*RouteError)):
		return transport.Hint(err)
	}
	return ""
}

// split returns worker i's share of total among count: the same for
// each, with the remainder going to the lowest indices.
func split(total int64, i, count int) int64 {
	share := total / int64(count)
	if int64(i) < total%int64(count) {
		share++
	}
	return share
}

// share returns the worker's part of c, whose counts are totals: -n,
// --rate and -c are split across the workers, the remainder going to
// the lowest indices (a rate's fraction of a request per second goes to
// worker 0). Every worker must get at least one of each.
func (c Config) share() (Config, error) {
	w := c.Worker
	if w.Single() {
		return c, nil
	}
	for _, t := range []struct {
		flag  string
		total float64
	}{{"-n", float64(c.Requests)}, {"--rate", c.Rate}, {"-c", float64(c.Conns)}} {
		if t.total > 0 && t.total < float64(w.Count) {
			return c, &WorkerError{Msg: fmt.Sprintf("%s %g across %d workers: every worker needs at least 1", t.flag, t.total, w.Count),
				Hint: "-c, -n and --rate are totals, split across the workers: give at least --workers of each, or fewer workers"}
		}
	}
	if c.askedConns == 0 {
		c.Conns = int(split(int64(c.Conns), w.Index, w.Count))
	} else {
		// -n lowered -c: each worker runs as many connections as requests.
		c.Conns = int(split(c.Requests, w.Index, w.Count))
	}
	if c.Requests > 0 {
		c.Requests = split(c.Requests, w.Index, w.Count)
	}
	if c.Rate > 0 {
		whole, frac := math.Modf(c.Rate)
		c.Rate = float64(split(int64(whole), w.Index, w.Count))
		if w.Index == 0 {
			c.Rate += frac
		}
	}
	return c, nil
}

// hashedConfig is what a run's configuration hash covers: everything
// that shapes the load the workers put on the server together (totals,
// targets, protocol, connection mode, duration, TLS and routes), and
// nothing particular to one worker (its index, host, start time, CA
// file path, the local server processes it measures).
type hashedConfig struct {
	Targets         []hashedTarget
	Conns, Streams  int
	Pipeline        int
	Rate            string // as strconv's 'g' writes it
	Requests        int64
	Duration        time.Duration
	Timeout         time.Duration
	Mode            string
	RequestsPerConn int
	Protocol        string
	TLSMin, TLSMax  uint16
	Ciphers         []uint16
	Groups          []string
	ServerName      string
	Insecure        bool
	Routes          transport.Routes
	MaxHeaderBytes  int64
	FirstVisit      bool
	Workers         int
}

type hashedTarget struct {
	Method, URL string
	Header      map[string][]string
	BodySHA256  string
}

// Hash returns "sha256:<hex>" of the run's configuration (see
// hashedConfig), the same for every worker of one run: results whose
// hashes differ are of different runs and are not merged. c holds the
// totals, with the defaults applied.
func (c Config) Hash() string {
	h := hashedConfig{Conns: c.Conns, Streams: c.Streams, Pipeline: c.Pipeline, Rate: strconv.FormatFloat(c.Rate, 'g', -1, 64),
		Requests: c.Requests, Duration: c.Duration, Timeout: c.Timeout, Mode: c.Mode.String(),
		RequestsPerConn: c.RequestsPerConn, Protocol: c.Protocol.String(), TLSMin: c.TLS.Min, TLSMax: c.TLS.Max,
		Ciphers: c.TLS.Ciphers, ServerName: c.TLS.ServerName, Insecure: c.TLS.Insecure, Routes: c.Routes,
		MaxHeaderBytes: c.MaxHeaderBytes, FirstVisit: c.FirstVisit, Workers: max(c.Worker.Count, 1)}
	if c.askedConns > 0 {
		h.Conns = c.askedConns
	}
	for _, g := range c.TLS.Curves {
		h.Groups = append(h.Groups, transport.GroupName(g))
	}
	for _, t := range c.Targets {
		body := sha256.Sum256(t.Body)
		h.Targets = append(h.Targets, hashedTarget{Method: t.Method, URL: t.URL, Header: t.Header, BodySHA256: hex.EncodeToString(body[:])})
	}
	// Every field is a string, an integer or a struct of them: json
	// cannot fail on them (a float could be NaN, hence Rate's string).
	data, _ := json.Marshal(h)
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// RunInfo says which run a result belongs to and where and when it ran,
// for a merge of several workers' results.
type RunInfo struct {
	Host   string // the machine's host name
	Worker Worker // the zero value for a run on its own
	// ClockOffset is how far the host's clock was ahead of true time
	// (negative: behind) as ClockSource estimated it; nil when unknown.
	ClockOffset *time.Duration
	ClockSource string // machine.ClockChrony or machine.ClockNone
	ConfigHash  string // Config.Hash of the totals
}

// runInfo returns the RunInfo of a run of total, asking chrony for the
// clock's offset (at most a second).
func runInfo(ctx context.Context, total Config) RunInfo {
	info := RunInfo{Host: machine.Hostname(), Worker: total.Worker, ConfigHash: total.Hash()}
	offset, source, ok := machine.ClockOffset(ctx)
	if info.ClockSource = source; ok {
		info.ClockOffset = &offset
	}
	return info
}
