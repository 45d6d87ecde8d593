package report

// The -n -L lines below the summary table. The table's rows are the
// final hop of each run; these say what the redirects before it cost and
// what the whole transfer took (curl's time_redirect and time_total):
//
//	  with -L the rows above are each run's final hop, after 2 redirects:
//	  redirects     5   0.812 ms   0.901 ms   1.210 ms   1.300 ms
//	  transfer      5   0.950 ms   1.100 ms   1.420 ms   1.500 ms

import (
	"fmt"
	"io"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
)

// RedirectSummary writes, for runs that followed redirects, the time of
// the redirect hops before the final one and of the whole transfer;
// nothing when no run was redirected. Failed runs do not count.
func RedirectSummary(w io.Writer, runs []*probe.Result) error {
	var redirects, transfers []time.Duration
	hops := map[int]bool{}
	for _, r := range runs {
		if r == nil || len(r.Hops) < 2 || r.Err != nil {
			continue
		}
		d := redirectTime(r.Hops)
		redirects = append(redirects, d)
		transfers = append(transfers, d+r.Final().Total)
		hops[len(r.Hops)-1] = true
	}
	if len(redirects) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	count := "redirects"
	if len(hops) == 1 {
		for n := range hops {
			count = fmt.Sprintf("%d redirects", n)
			if n == 1 {
				count = "1 redirect"
			}
		}
	}
	ew.printf("with -L the rows above are each run's final hop, after %s:\n", count)
	writeDistRow(ew, "redirects", summarize(redirects))
	writeDistRow(ew, "transfer", summarize(transfers))
	return ew.err
}
