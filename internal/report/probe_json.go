package report

import "github.com/httpslab/httpslab/internal/probe"

// ProbeJSON is the result of probe --json, inside the httpslab/probe
// envelope (schema/probe.json): the URL asked for and one Result per
// run, each with one Timeline per redirect hop.
type ProbeJSON struct {
	URL  string          `json:"url"`
	Runs []*probe.Result `json:"runs"`
	// Interrupted is true when the probe was stopped (Ctrl-C) before its
	// runs were done: Runs holds those that completed, as bench and
	// compare mark theirs.
	Interrupted bool `json:"interrupted,omitempty"`
}
