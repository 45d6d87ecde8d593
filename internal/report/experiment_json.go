package report

import (
	"math"
	"time"

	"github.com/httpslab/httpslab/internal/experiment"
)

// The JSON of an experiment (schema httpslab/experiment/v1): the
// variants with their verification and raw per-block samples (so that
// the analysis can be redone), the order each block ran in, the verdicts
// and the environment. Values that do not exist (a coefficient of
// variation with a zero mean, an interval with too few blocks) are null.

// ExperimentJSON is the JSON form of an experiment.
type ExperimentJSON struct {
	Command   string                    `json:"command"`
	Blocks    int                       `json:"blocks_planned"`
	Order     [][]int                   `json:"order"`
	Seed      uint64                    `json:"seed"`
	Stopped   string                    `json:"stopped,omitempty"`
	Start     time.Time                 `json:"start"`
	ElapsedNS time.Duration             `json:"elapsed_ns"`
	Metrics   []experiment.Metric       `json:"metrics"`
	Variants  []experimentVariantJSON   `json:"variants"`
	Analysis  experimentAnalysisJSON    `json:"analysis"`
	Env       experimentEnvironmentJSON `json:"environment"`
}

type experimentVariantJSON struct {
	Name        string                 `json:"name"`
	Baseline    bool                   `json:"baseline"`
	Changes     []experiment.Change    `json:"changes"`
	Settings    []experiment.Change    `json:"settings"`
	Edits       []int                  `json:"edits"`
	Status      experiment.Status      `json:"status"`
	Evidence    string                 `json:"evidence"`
	Observation experiment.Observation `json:"observation"`
	Warnings    []string               `json:"nginx_warnings"`
	ErrorLog    []string               `json:"nginx_error_log"`
	Samples     []*experiment.Sample   `json:"samples"`
	BlockErrors []string               `json:"block_errors"`
}

type experimentAnalysisJSON struct {
	Alpha        float64                 `json:"alpha"`
	Effect       float64                 `json:"effect"`
	Level        float64                 `json:"level"`
	Blocks       int                     `json:"complete_blocks"`
	Family       int                     `json:"family"`
	MinP         float64                 `json:"min_p"`
	Reachable    bool                    `json:"reachable"`
	BlocksNeeded int                     `json:"blocks_needed,omitempty"`
	Verdicts     []experimentVerdictJSON `json:"verdicts"`
}

type experimentVerdictJSON struct {
	Variant      string   `json:"variant"`
	Metric       string   `json:"metric"`
	Baseline     float64  `json:"baseline_median"`
	Value        float64  `json:"variant_median"`
	Ratio        bool     `json:"ratio"`
	Shift        float64  `json:"shift"`
	CILo         *float64 `json:"ci_lo"`
	CIHi         *float64 `json:"ci_hi"`
	CILevel      float64  `json:"ci_level"`
	P            float64  `json:"p"`
	PHolm        float64  `json:"p_holm"`
	Significant  bool     `json:"significant"`
	Inconclusive bool     `json:"inconclusive"`
	OutOfReach   bool     `json:"out_of_reach"`
	CV           *float64 `json:"cv"`
	BaseCV       *float64 `json:"baseline_cv"`
}

type experimentEnvironmentJSON struct {
	// Server is the command-line template of a server other than nginx;
	// absent for nginx, whose nginx -V is NginxV.
	Server     string `json:"server,omitempty"`
	NginxV     string `json:"nginx_v"`
	OpenSSL    string `json:"openssl"`
	Kernel     string `json:"kernel"`
	CPUModel   string `json:"cpu_model"`
	CPUs       int    `json:"cpus"`
	Governor   string `json:"governor"`
	TCPMetrics string `json:"tcp_metrics"`
	Pinning    string `json:"pinning"`
	// Link is the emulated link's setting; absent without one.
	Link string `json:"link,omitempty"`
}

// ExperimentResultJSON returns the JSON form of r.
func ExperimentResultJSON(r *experiment.Result) ExperimentJSON {
	j := ExperimentJSON{Command: r.Command, Blocks: r.Blocks, Order: r.Order, Seed: r.Seed, Stopped: r.Stopped,
		Start: r.Start.UTC(), ElapsedNS: r.Elapsed, Metrics: r.Metrics}
	for _, v := range r.Variants {
		j.Variants = append(j.Variants, experimentVariantJSON{Name: v.Name, Baseline: v.Baseline, Changes: v.Changes,
			Settings: v.Settings, Edits: v.Edits, Status: v.Status, Evidence: v.Evidence, Observation: v.Observation,
			Warnings: v.Warnings, ErrorLog: v.ErrorLog, Samples: v.Samples, BlockErrors: v.BlockErrors})
	}
	a := r.Analysis
	j.Analysis = experimentAnalysisJSON{Alpha: a.Alpha, Effect: a.Effect, Level: experiment.Level, Blocks: a.Blocks, Family: a.Family,
		MinP: a.MinP, Reachable: a.Reachable, BlocksNeeded: a.BlocksNeeded, Verdicts: []experimentVerdictJSON{}}
	for _, v := range a.Verdicts {
		vj := experimentVerdictJSON{Variant: r.Variants[v.Variant].Name, Metric: v.Metric, Baseline: v.Baseline,
			Value: v.Value, Ratio: v.Ratio, Shift: v.Shift, CILevel: v.CI.Level, P: v.P, PHolm: v.PHolm, Significant: v.Significant, Inconclusive: v.Inconclusive,
			OutOfReach: v.OutOfReach, CV: finite(v.CV), BaseCV: finite(v.BaseCV)}
		if v.CI.Valid() {
			vj.CILo, vj.CIHi = finite(v.CI.Lo), finite(v.CI.Hi)
		}
		j.Analysis.Verdicts = append(j.Analysis.Verdicts, vj)
	}
	e := r.Env
	j.Env = experimentEnvironmentJSON{Server: e.Server, NginxV: e.NginxVersion, OpenSSL: e.OpenSSL, Kernel: e.Kernel, CPUModel: e.CPUModel,
		CPUs: e.CPUs, Governor: e.Governor, TCPMetrics: e.TCPMetrics, Pinning: e.Pinning, Link: e.Link}
	return j
}

// finite returns x, or nil for NaN and infinities, which JSON cannot hold.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
