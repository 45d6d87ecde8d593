package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/transport"
)

// Hint suggests a fix for the most common reason the run's requests
// failed, in the words of bench's flags: it reads the sample error of each
// message, from the most frequent down (ties by message), and takes the
// first that says something (a timeout names the run's own --timeout,
// the rest is transport.Hint). Without one it points at the errors table.
func (r *Result) Hint() string {
	msgs := slices.SortedFunc(maps.Keys(r.ErrorCounts), func(x, y string) int {
		return cmp.Or(cmp.Compare(r.ErrorCounts[y], r.ErrorCounts[x]), strings.Compare(x, y))
	})
	for _, msg := range msgs {
		err := r.ErrorSamples[msg]
		if err == nil {
			continue
		}
		var netErr net.Error
		if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
			return "the server did not answer within --timeout; check that it is not stalled, or raise --timeout"
		}
		var large *HeaderTooLargeError
		if errors.As(err, &large) {
			return "the server sent more response header than --max-header-size allows; raise it if the server means to send that much"
		}
		if r.Config.Protocol == transport.HTTP3 && errors.Is(err, syscall.ECONNREFUSED) {
			// The TCP port may well be open: HTTP/3 is QUIC over UDP.
			return "nothing receives QUIC on that UDP port: does the server speak HTTP/3 there? (nginx: listen PORT quic); leave out --http3 for HTTP/1.1 or --http2"
		}
		if hint := transport.Hint(err); hint != "" {
			return hint
		}
	}
	return "see the errors table above"
}

// Failure is the error of a run in which nothing succeeded: every request
// failed (Hint says why), or none completed in the run's time; nil when
// a request completed.
func (r *Result) Failure() error {
	switch {
	case r.Requests > 0:
		return nil
	case r.Errors > 0:
		return errors.New("every request failed")
	}
	return fmt.Errorf("no request completed in the %s run", r.Config.Duration)
}

// Tripped lists the thresholds the result trips, each with the value it
// measured: "p99>200ms (measured 312ms)".
func (r *Result) Tripped(thresholds []Threshold) []string {
	var tripped []string
	for _, t := range thresholds {
		if hit, v := t.Tripped(r); hit {
			tripped = append(tripped, fmt.Sprintf("%s (measured %s)", t.Text, v))
		}
	}
	return tripped
}
