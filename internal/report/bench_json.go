package report

import (
	"crypto/tls"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/machine"
	"github.com/httpslab/httpslab/internal/transport"
)

// BenchJSON is the JSON form of a bench result (load.Result), written inside the
// httpslab/bench/v4 envelope. Latencies are in microseconds;
// each histogram also comes as HdrHistogram's compressed V2 encoding
// (base64), which other HDR tools decode and merge across runs. Intervals
// holds each second of the run with its own histograms in the same
// encoding (see BenchInterval).
type BenchJSON struct {
	Target         []string             `json:"targets"`
	Protocol       string               `json:"protocol"`
	Client         string               `json:"client,omitempty"` // the HTTP client that ran, as load.Result.Client
	Conns          int                  `json:"connections"`
	Streams        int                  `json:"streams"`
	ServerStreams  *int64               `json:"server_max_streams,omitempty"` // the server's lowest SETTINGS_MAX_CONCURRENT_STREAMS (HTTP/2), 0 included
	Pipeline       int                  `json:"pipeline"`
	Mode           string               `json:"conn_mode"`
	Rate           float64              `json:"rate,omitempty"`
	Interrupted    bool                 `json:"interrupted"`
	ElapsedSeconds float64              `json:"elapsed_s"`
	Requests       int64                `json:"requests"`
	Errors         int64                `json:"errors"`
	RequestsPerSec float64              `json:"requests_per_s"`
	Connections    int64                `json:"connections_opened"`
	DialErrors     int64                `json:"dial_errors"`
	Handshakes     int64                `json:"handshakes"`
	Resumed        int64                `json:"resumed"`
	HandshakesPerS float64              `json:"handshakes_per_s"`
	Bytes          int64                `json:"bytes"` // response body bytes, as Result.Bytes
	Status         map[string]int64     `json:"status"`
	ErrorMessages  map[string]int64     `json:"error_messages"`
	TLS            []BenchTLS           `json:"tls"`
	KeyShares      *BenchKeyShares      `json:"key_shares,omitempty"` // HTTPS runs only
	Latency        map[string]BenchHist `json:"latency_us"`
	Late           int64                `json:"late_sends"`
	Dropped        int64                `json:"dropped_sends"`
	MaxLagMicros   int64                `json:"max_lag_us"`
	SendRate       float64              `json:"send_rate_per_s,omitempty"`
	CPU            BenchCPU             `json:"cpu"`
	Run            BenchRun             `json:"run"`
	Intervals      []BenchInterval      `json:"intervals"`
	// Merged says how httpslab merge combined the result from several;
	// absent for a run's own.
	Merged *BenchMerged `json:"merged,omitempty"`
	// Thresholds are the --fail-if conditions, each with the value it
	// was checked against and whether it tripped (exit code 3).
	Thresholds []BenchThreshold `json:"thresholds,omitempty"`
}

// BenchRun is what a merge of several workers' results needs: when the
// measurement started, where, which worker of how many, the clock's
// offset and the run's configuration hash (load.RunInfo).
type BenchRun struct {
	StartedAt time.Time    `json:"started_at"` // RFC 3339 with nanoseconds, UTC
	Host      string       `json:"host"`
	Worker    *BenchWorker `json:"worker,omitempty"` // absent for a run on its own
	// ClockOffset is how far the host's clock was ahead of true time
	// (negative: behind), absent when unknown (clock_source none).
	ClockOffset *int64 `json:"clock_offset_ns,omitempty"`
	ClockSource string `json:"clock_source"` // chronyc or none
	ConfigHash  string `json:"config_hash"`  // sha256:<hex> of the totals, the same for every worker of a run
}

// BenchMerged is load.Merged: the results combined, the distinct hosts,
// how far apart they started and the histogram values dropped.
type BenchMerged struct {
	Results        int      `json:"results"`
	Workers        int      `json:"workers,omitempty"` // the run's worker count; absent for runs on their own
	Hosts          []string `json:"hosts"`
	StartSkewNS    int64    `json:"start_skew_ns"`
	ClockCorrected bool     `json:"clock_corrected"`
	DroppedValues  int64    `json:"dropped_values"`
}

// BenchWorker is a worker's index among count.
type BenchWorker struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// BenchThreshold is one --fail-if condition checked on the result.
type BenchThreshold struct {
	Condition string `json:"condition"` // as given, e.g. "p99>200ms"
	Measured  string `json:"measured"`  // the value checked, e.g. "312ms"
	Tripped   bool   `json:"tripped"`
}

// BenchInterval is one second of the run (load.Interval), aligned to its
// start: the requests and errors that ended in it and its latency
// histograms in microseconds, each in HdrHistogram's V2 compressed
// encoding (base64) as a line of an HdrHistogram interval log holds it.
// They have the range and precision of latency_us's, so the intervals
// merge with each other (across workers too, by their start) into the
// run's. Histogram decodes one; IntervalLog writes them as a log.
type BenchInterval struct {
	OffsetSeconds int64     `json:"offset_s"` // from the run's start, whole seconds
	Start         time.Time `json:"start"`    // wall clock: the run's start plus offset_s
	LengthSeconds float64   `json:"length_s"` // 1, or less when partial
	// Partial is set on the last interval when the run ended inside it:
	// interrupted, or the requests in flight at the end of -d.
	Partial  bool             `json:"partial"`
	Requests int64            `json:"requests"` // completed, any status
	Errors   int64            `json:"errors"`
	HDR      BenchIntervalHDR `json:"hdr"`
}

// BenchIntervalHDR holds an interval's encoded histograms by phase, as
// latency_us names them; service in the open model only.
type BenchIntervalHDR struct {
	Connect string `json:"connect"`
	TLS     string `json:"tls"`
	Waiting string `json:"waiting"`
	Total   string `json:"total"`
	Service string `json:"service,omitempty"`
}

// BenchTLS is one row of the TLS summary.
type BenchTLS struct {
	Version string `json:"version"`
	Cipher  string `json:"cipher"`
	Group   string `json:"group,omitempty"`
	Full    int64  `json:"full"`
	Resumed int64  `json:"resumed"`
}

// BenchKeyShares says which key-exchange groups a run's handshakes
// offered and used, as load.KeyShareUse, and what a full handshake stood
// for: Visit is "first" when every handshake offered the configured groups
// (--first-visit), "returning" when later handshakes offered the group
// learned from the server first and computed its key share alone, and
// "unlearned" when no handshake showed the server's group.
type BenchKeyShares struct {
	Visit          string   `json:"visit"`
	Offered        []string `json:"offered"`           // the first handshakes' groups, in the order offered
	Shares         []string `json:"shares"`            // those of Offered that carried a key share
	Learned        string   `json:"learned,omitempty"` // the server's group, once learned
	LearnedOffered []string `json:"learned_offered,omitempty"`
	LearnedShares  []string `json:"learned_shares,omitempty"`
	Used           []string `json:"used"` // the groups the server chose, as in tls
	HelloRetries   int64    `json:"hello_retry_requests"`
}

// BenchHist summarises one latency histogram.
type BenchHist struct {
	Count       int64            `json:"count"`
	Min         int64            `json:"min"`
	Mean        float64          `json:"mean"`
	StdDev      float64          `json:"sd"`
	Max         int64            `json:"max"`
	Percentiles map[string]int64 `json:"percentiles"`
	HDR         string           `json:"hdr"`
}

// BenchCPU is CPU time in seconds.
type BenchCPU struct {
	ClientUser   float64 `json:"client_user_s"`
	ClientSystem float64 `json:"client_system_s"`
	ClientCores  int     `json:"client_cores"`
	// ClientQuota is the client's cgroup CPU quota in cores, when it is
	// below client_cores; its share of CPU counts against it.
	ClientQuota  float64 `json:"client_quota_cores,omitempty"`
	Saturated    bool    `json:"client_saturated"`
	ServerUser   float64 `json:"server_user_s,omitempty"`
	ServerSystem float64 `json:"server_system_s,omitempty"`
	Server       bool    `json:"server_measured"`
	// ServerBusiest is the server process that used the largest share of
	// the cores it could use.
	ServerBusiest *BenchProcBusy `json:"server_busiest,omitempty"`
	// ServerNotListening is true when none of the server processes
	// receives on the port the connections went to.
	ServerNotListening bool `json:"server_not_listening,omitempty"`
	// Others is the CPU time the machine's other processes used (absent
	// where /proc/stat cannot be read or the run was too short).
	Others *float64 `json:"others_s,omitempty"`
	// StealShare is the share of the machine's CPU time the hypervisor
	// took (absent where /proc/stat cannot be read).
	StealShare *float64 `json:"steal_share,omitempty"`
}

// BenchProcBusy is one server process's CPU time and share of its cores;
// Saturated when the share is 0.9 or more over a run of 1 s or more: then
// the server was the limit.
type BenchProcBusy struct {
	PID       int     `json:"pid"`
	CPU       float64 `json:"cpu_s"`
	Cores     float64 `json:"cores"`
	Share     float64 `json:"share"`
	Saturated bool    `json:"saturated"`
}

// NewBenchJSON returns the JSON form of a bench result, with the
// --fail-if thresholds checked on it.
func NewBenchJSON(r *load.Result, thresholds ...load.Threshold) BenchJSON {
	c := r.Config
	j := BenchJSON{
		Protocol: c.Protocol.String(), Client: r.Client, Conns: c.Conns, Streams: c.Streams, ServerStreams: r.ServerStreams, Pipeline: c.Pipeline,
		Mode: c.Mode.String(), Rate: c.Rate, Interrupted: r.Interrupted, ElapsedSeconds: r.Elapsed.Seconds(),
		Requests: r.Requests, Errors: r.Errors, RequestsPerSec: r.RequestRate(), Connections: r.Connections,
		DialErrors: r.DialErrors,
		Handshakes: r.Handshakes, Resumed: r.Resumed, HandshakesPerS: r.HandshakeRate(), Bytes: r.Bytes,
		Status: map[string]int64{}, ErrorMessages: r.ErrorCounts, Late: r.Late, Dropped: r.Dropped,
		MaxLagMicros: r.MaxLag.Microseconds(), SendRate: r.SendRate(), TLS: []BenchTLS{},
		Latency: map[string]BenchHist{
			"connect": benchHist(r.Latency.Connect), "tls": benchHist(r.Latency.TLS),
			"waiting": benchHist(r.Latency.Waiting), "total": benchHist(r.Latency.Total),
		},
		CPU: BenchCPU{ClientUser: r.CPU.ClientUser.Seconds(), ClientSystem: r.CPU.ClientSystem.Seconds(),
			ClientCores: r.CPU.ClientCores, ClientQuota: r.CPU.ClientQuota, Saturated: r.CPU.ClientSaturated(), Server: r.CPU.ServerMeasured,
			ServerUser: r.CPU.ServerUser.Seconds(), ServerSystem: r.CPU.ServerSystem.Seconds(),
			ServerNotListening: r.CPU.NotListening},
	}
	j.Run = benchRun(r)
	if b := r.CPU.ServerBusiest; r.CPU.ServerMeasured && b.PID != 0 {
		j.CPU.ServerBusiest = &BenchProcBusy{PID: b.PID, CPU: b.CPU.Seconds(), Cores: b.Cores,
			Share: b.Share(r.CPU.Wall), Saturated: r.CPU.ServerSaturated()}
	}
	if r.CPU.OthersMeasured {
		others := r.CPU.Others.Seconds()
		j.CPU.Others = &others
	}
	if r.CPU.StealMeasured {
		share := r.CPU.Steal.Share()
		j.CPU.StealShare = &share
	}
	if c.Rate > 0 {
		j.Latency["service"] = benchHist(r.Latency.Service)
	}
	for _, t := range thresholds {
		hit, v := t.Tripped(r)
		j.Thresholds = append(j.Thresholds, BenchThreshold{Condition: t.Text, Measured: v, Tripped: hit})
	}
	for _, t := range c.Targets {
		j.Target = append(j.Target, t.URL)
	}
	j.Intervals = benchIntervals(r.Intervals)
	for code, n := range r.Status {
		j.Status[strconv.Itoa(code)] = n
	}
	for _, t := range r.TLS {
		row := BenchTLS{Version: tls.VersionName(t.Version), Cipher: tls.CipherSuiteName(t.Cipher), Full: t.Full, Resumed: t.Resumed}
		if t.Curve != 0 {
			row.Group = transport.GroupName(t.Curve)
		}
		j.TLS = append(j.TLS, row)
	}
	j.KeyShares = benchKeySharesJSON(r)
	if m := r.Merged; m != nil {
		j.Merged = &BenchMerged{Results: m.Results, Workers: m.Workers, Hosts: m.Hosts, StartSkewNS: m.StartSkew.Nanoseconds(),
			ClockCorrected: m.ClockCorrected, DroppedValues: m.Dropped}
	}
	return j
}

// benchKeySharesJSON returns the key shares of an HTTPS run, nil for
// plain HTTP.
func benchKeySharesJSON(r *load.Result) *BenchKeyShares {
	k := r.KeyShares
	if len(k.Offered) == 0 {
		return nil
	}
	j := &BenchKeyShares{Visit: "unlearned", Offered: groupNames(k.Offered), Shares: groupNames(k.Shares),
		Used: []string{}, HelloRetries: k.HelloRetries}
	switch {
	case k.FirstVisit:
		j.Visit = "first"
	case k.Learned != 0:
		j.Visit, j.Learned = "returning", transport.GroupName(k.Learned)
		j.LearnedOffered, j.LearnedShares = groupNames(k.LearnedOffered), groupNames(k.LearnedShares)
	}
	for _, t := range r.TLS {
		if name := transport.GroupName(t.Curve); t.Curve != 0 && !slices.Contains(j.Used, name) {
			j.Used = append(j.Used, name)
		}
	}
	return j
}

func groupNames(ids []tls.CurveID) []string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = transport.GroupName(id)
	}
	return names
}

func benchRun(r *load.Result) BenchRun {
	info := r.Run
	run := BenchRun{StartedAt: r.Start.UTC(), Host: info.Host, ClockSource: info.ClockSource, ConfigHash: info.ConfigHash}
	if !info.Worker.Single() {
		run.Worker = &BenchWorker{Index: info.Worker.Index, Count: info.Worker.Count}
	}
	if info.ClockOffset != nil {
		ns := info.ClockOffset.Nanoseconds()
		run.ClockOffset = &ns
	}
	if run.ClockSource == "" {
		run.ClockSource = machine.ClockNone
	}
	if run.ConfigHash == "" {
		// A result that load.Run did not make (a test's, or a caller's
		// own): the hash of its configuration as it is.
		run.ConfigHash = r.Config.Hash()
	}
	return run
}

func benchHist(h *hdrhistogram.Histogram) BenchHist {
	j := BenchHist{Count: h.TotalCount(), Min: h.Min(), Mean: h.Mean(), StdDev: h.StdDev(), Max: h.Max(),
		Percentiles: map[string]int64{}}
	if j.Count == 0 {
		j.Min = 0
	}
	for _, p := range BenchPercentiles {
		j.Percentiles["p"+strconv.FormatFloat(p, 'f', -1, 64)] = h.ValueAtQuantile(p)
	}
	if enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		j.HDR = string(enc) // already base64
	}
	return j
}
