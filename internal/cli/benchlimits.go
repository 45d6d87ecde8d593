package cli

import (
	"errors"

	"github.com/httpslab/httpslab/internal/load"
)

// maxThreads bounds -t: the Go runtime keeps state per thread slot, and a
// count far past the cores only costs memory (-t 100000 took 2 GiB).
const maxThreads = 1024

// checkLimits refuses a -t past maxThreads, and a -c, -m or --pipeline
// past what load can run on this machine (load.CheckLimits, which load.Run
// applies to every caller), naming the flags and with a hint.
func (f benchFlags) checkLimits() error {
	if f.threads > maxThreads {
		return usagef("-t %d: want at most %d (threads past the cores add no parallelism)", f.threads, maxThreads)
	}
	err := load.CheckLimits(load.Config{Conns: f.conns, Streams: f.streams, Pipeline: f.pipeline})
	var lim *load.LimitError
	if !errors.As(err, &lim) {
		return err
	}
	switch lim.Field {
	case "Streams":
		return usagef("-m %d: want at most %d", lim.Value, lim.Max)
	case "Pipeline":
		return usagef("--pipeline %d: want at most %d", lim.Value, lim.Max)
	case "Conns":
		return withHint(usagef("-c %d: want at most %d: %s", lim.Value, lim.Max, lim.Why),
			"use fewer connections, or more streams per connection (-m) with --http2")
	}
	return withHint(usagef("-c %d with %d in flight per connection: %d requests at once, want at most %d",
		f.conns, f.streams*f.pipeline, lim.Value, lim.Max), "fewer connections or fewer streams per connection")
}
