package experiment

import (
	"os/exec"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// Result is an experiment: what each variant was, whether it was live,
// its raw samples per block and the verdicts against the baseline.
type Result struct {
	// Command is the measurement's command line (after "--").
	Command  string
	Metrics  []Metric
	Variants []VariantResult
	// Blocks is the number of blocks planned; Order holds, per block
	// begun, the variants' indices in the order they ran.
	Blocks int
	Order  [][]int
	Seed   uint64
	// Stopped says why fewer blocks than planned ran: "interrupted" or
	// "max-time"; empty when all ran.
	Stopped string
	Start   time.Time
	Elapsed time.Duration
	Env     Environment
	// Analysis holds the verdicts and what the design could detect.
	Analysis Analysis
}

// VariantResult is one variant's part of a Result.
type VariantResult struct {
	Name     string
	Baseline bool
	Changes  []Change
	Settings []Change
	// Edits says, per setting, how many directives of the template it
	// changed (0: added to the http block).
	Edits  []int
	Status Status
	// Evidence is what verification saw ("resumed: no → yes"), or nginx's
	// message for a variant that failed or is obsolete.
	Evidence    string
	Observation Observation
	// Warnings are nginx -t's warnings; ErrorLog the last lines of its
	// error log after the variant's last run.
	Warnings []string
	ErrorLog []string
	// Samples has one entry per block begun; nil where the variant did
	// not run or its measurement failed (BlockErrors says why).
	Samples     []*Sample
	BlockErrors []string
}

// CompleteBlocks returns the indices of the blocks in which every
// measured variant has a sample: the paired analysis uses those only.
func (r *Result) CompleteBlocks() []int {
	var out []int
	for b := range r.Order {
		complete := true
		for _, v := range r.Variants {
			if v.Status.Measured() && (b >= len(v.Samples) || v.Samples[b] == nil) {
				complete = false
			}
		}
		if complete {
			out = append(out, b)
		}
	}
	return out
}

// Environment is the fingerprint of the machine and server an experiment
// ran on, for telling later whether two experiments compare.
type Environment struct {
	// Server is the command-line template of a server other than nginx;
	// empty for nginx.
	Server       string
	NginxVersion string // nginx -V, in full
	OpenSSL      string // the OpenSSL nginx was built with and runs with
	Kernel       string
	CPUModel     string
	CPUs         int
	Governor     string
	// Pinning says which CPUs the server and the client were kept on.
	Pinning string
	// Link is the emulated link's setting the servers ran behind; empty
	// without one.
	Link string
	// TCPMetrics says whether the kernel's cached TCP metrics for the
	// server's address were flushed between variants.
	TCPMetrics string
}

// fingerprint reads the environment; nginx is the binary to run.
func fingerprint(nginx string, cpus int) Environment {
	env := Environment{Kernel: machine.Kernel(), CPUModel: machine.CPUModel(), CPUs: cpus, Governor: machine.Governor()}
	out, _ := exec.Command(cmpOr(nginx, "nginx"), "-V").CombinedOutput()
	env.NginxVersion = strings.TrimSpace(string(out))
	for line := range strings.Lines(env.NginxVersion) {
		if strings.HasPrefix(line, "built with OpenSSL") {
			env.OpenSSL = strings.TrimSpace(strings.TrimPrefix(line, "built with "))
		}
	}
	return env
}
