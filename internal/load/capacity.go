package load

import (
	"fmt"

	"github.com/httpslab/httpslab/internal/machine"
)

// MaxInFlight bounds the requests in flight at once, Conns × Streams ×
// Pipeline, and each of Streams and Pipeline: each request in flight
// holds a goroutine or a slot, and HTTP/2 and HTTP/3 servers allow a few
// hundred streams per connection (nginx 128, Go 250), so 100,000,000
// streams per connection only grew memory until the process was killed.
const MaxInFlight = 100000

// LimitError is a Config that asks for more connections or requests in
// flight than this machine or the load generator can run.
type LimitError struct {
	// Field is the Config field over its limit: "Conns", "Streams",
	// "Pipeline", or "InFlight" for Conns × Streams × Pipeline.
	Field string
	// Value is what the Config asks for, Max what can run.
	Value, Max int64
	// Why says what sets Max for Conns: the open-file limit or the
	// machine's local ports.
	Why string
	// Conns and PerConn are the connections and the requests in flight on
	// each (Streams × Pipeline) behind an InFlight Value.
	Conns, PerConn int64
}

// Usage says the same in the words of bench's flags (-c, -m, --pipeline),
// with a hint where one helps, for a command line that asked too much.
func (e *LimitError) Usage() (msg, hint string) {
	switch e.Field {
	case "Streams":
		return fmt.Sprintf("-m %d: want at most %d", e.Value, e.Max), ""
	case "Pipeline":
		return fmt.Sprintf("--pipeline %d: want at most %d", e.Value, e.Max), ""
	case "Conns":
		return fmt.Sprintf("-c %d: want at most %d: %s", e.Value, e.Max, e.Why),
			"use fewer connections, or more streams per connection (-m) with --http2"
	}
	return fmt.Sprintf("-c %d with %d in flight per connection: %d requests at once, want at most %d",
		e.Conns, e.PerConn, e.Value, e.Max), "fewer connections or fewer streams per connection"
}

func (e *LimitError) Error() string {
	names := map[string]string{"Conns": "connections", "Streams": "streams per connection",
		"Pipeline": "pipelined requests per connection", "InFlight": "requests in flight"}
	msg := fmt.Sprintf("%d %s: want at most %d", e.Value, names[e.Field], e.Max)
	if e.Why != "" {
		msg += ": " + e.Why
	}
	return msg
}

// CheckLimits returns a *LimitError when c asks for more connections or
// requests in flight than can run: more connections than this machine
// lets one process open to one address (machine.ConnLimit), or more than
// MaxInFlight requests at once. Run checks it for every caller; a caller
// that wants to refuse before it starts anything calls it first.
func CheckLimits(c Config) error {
	streams, pipeline := int64(max(c.Streams, 1)), int64(max(c.Pipeline, 1))
	conns := int64(max(c.Conns, c.askedConns, 1))
	if streams > MaxInFlight {
		return &LimitError{Field: "Streams", Value: streams, Max: MaxInFlight}
	}
	if pipeline > MaxInFlight {
		return &LimitError{Field: "Pipeline", Value: pipeline, Max: MaxInFlight}
	}
	if n, why := machine.ConnLimit(); conns > int64(n) {
		return &LimitError{Field: "Conns", Value: conns, Max: int64(n), Why: why}
	}
	// conns is at most machine.ConnLimit's 1<<20 here and the others
	// MaxInFlight: the product fits an int64.
	if n := conns * streams * pipeline; n > MaxInFlight {
		return &LimitError{Field: "InFlight", Value: n, Max: MaxInFlight, Conns: conns, PerConn: streams * pipeline}
	}
	return nil
}
