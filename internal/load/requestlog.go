package load

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
)

// The request log (Config.RequestLog, bench's --request-log) has one line
// per request, completed or failed, in the order the aggregator received
// them, with three fields separated by a space:
//
//	start_unix_ns latency_ns status
//
// start_unix_ns is when the request was due (open model: its intended
// send time) or started (closed model), in nanoseconds since the Unix
// epoch; latency_ns is its total latency in nanoseconds, as the total
// histogram records it before rounding to microseconds (from the intended
// send time in the open model); status is the HTTP status, or 0 for a
// request that failed without a response. It holds every request's own
// measurement, for tools that want more than the histograms.

// requestLog writes the request log, owned by the aggregator.
type requestLog struct {
	f     *os.File
	w     *bufio.Writer
	start int64 // the run's start, Unix nanoseconds
	line  []byte
}

// openRequestLog creates the log file at path.
func openRequestLog(path string) (*requestLog, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("opening the request log: %w", err)
	}
	return &requestLog{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add writes the line of a request event; errors show at close.
func (l *requestLog) add(e *event) {
	from := e.start
	if e.intended >= 0 {
		from = e.intended
	}
	b := strconv.AppendInt(l.line[:0], l.start+from, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, e.end-from, 10)
	b = append(b, ' ')
	status := e.status
	if e.err != nil {
		status = 0
	}
	b = strconv.AppendInt(b, int64(status), 10)
	l.line = append(b, '\n')
	l.w.Write(l.line)
}

// close flushes and closes the file, returning the first write error.
func (l *requestLog) close() error {
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the request log: %w", err)
	}
	return nil
}
