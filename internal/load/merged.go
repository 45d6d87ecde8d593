package load

import "time"

// Merged says how a result was combined from several runs' results
// (httpslab merge): how many, from which hosts, how far apart they
// started. A run's own result has none.
type Merged struct {
	Results int      // the results combined
	Workers int      // the run's worker count; 0 for runs on their own
	Hosts   []string // the distinct hosts, sorted
	// StartSkew is the latest start less the earliest, each by its host's
	// clock corrected by the clock's offset where its host knew it
	// (ClockCorrected: every host did).
	StartSkew      time.Duration
	ClockCorrected bool
	// Dropped is the count of values a histogram merge could not hold (a
	// bucket past the int64 range), 0 unless a result held such counts;
	// never left out silently.
	Dropped int64
}
