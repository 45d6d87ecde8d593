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
	if lim, ok := errors.AsType[*load.LimitError](err); ok {
		msg, hint := lim.Usage()
		if err = (usageError{errors.New(msg)}); hint != "" {
			return withHint(err, hint)
		}
	}
	return err
}
