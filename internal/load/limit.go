package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// ProcBusy is how busy one server process kept the cores it could use.
// A single-threaded process (an nginx worker) that used 95% of one core
// is the limit, even on a machine whose other cores were idle, so a
// server's saturation is judged per process, not over the machine.
type ProcBusy struct {
	PID int
	CPU time.Duration // user and system time during the run
	// Cores is how many cores it could keep busy: its threads, at most
	// the CPUs its affinity mask allows and its cgroup CPU quota (which
	// may be a fraction: docker --cpus 0.5).
	Cores float64
}

// Share is the part of its cores the process used over wall, from 0 to 1
// (more only by /proc's 10 ms ticks).
func (p ProcBusy) Share(wall time.Duration) float64 {
	if wall <= 0 || p.Cores <= 0 {
		return 0
	}
	return float64(p.CPU) / float64(wall) / p.Cores
}

// saturatedShare is the share of its cores from which a side counts as
// saturated: the limit of the run.
const saturatedShare = 0.9

// minLimitWall is the shortest run for which the report names the
// limit: /proc counts a server's CPU time in 10 ms ticks, and shorter runs
// are mostly start-up.
const minLimitWall = time.Second

// ServerSaturated reports whether a server process used at least 90% of
// the cores it could use; false when the server was not measured or the
// run was too short to tell.
func (c CPU) ServerSaturated() bool {
	return c.ServerMeasured && c.Wall >= minLimitWall && c.ServerBusiest.Share(c.Wall) >= saturatedShare
}

// Limit says what set the pace of a closed-model run, from how busy
// the client and the server were: "" for the open model, where the
// schedule sets it, for runs too short to tell and for runs in which no
// request ended; a run with 1% or more failed requests is not judged.
func (r *Result) Limit() string {
	c := r.CPU
	if r.Config.Rate > 0 || c.Wall < minLimitWall || r.Requests+r.Errors == 0 {
		return ""
	}
	if share := r.ErrorRate(); share >= limitErrorShare {
		// Failures set such a run's pace as much as either side: refused
		// dials retried at once keep the client busy, timeouts keep it
		// idle, and neither says what the server holds.
		return fmt.Sprintf("not judged: %.3g%% of the requests failed (see Errors); fix them first", 100*share)
	}
	client := fmt.Sprintf("%.0f%% of %s core(s)", 100*c.ClientShare(), coresText(c.ClientCapacity()))
	server := ""
	if c.ServerMeasured {
		b := c.ServerBusiest
		server = fmt.Sprintf("process %d at %.0f%% of %s core(s)", b.PID, 100*b.Share(c.Wall), coresText(b.Cores))
	}
	switch cs, ss := c.ClientSaturated(), c.ServerSaturated(); {
	case !c.ServerMeasured && cs:
		return "the client (" + client + "), perhaps: the server may hold more than this run shows; --server-pid tells"
	case !c.ServerMeasured:
		return "not the client (" + client + "); --server-pid PID tells whether the server was"
	case cs && ss:
		return "both the client (" + client + ") and the server (" + server + ")"
	case cs:
		more := "give the client more cores (-t) or another machine"
		if c.ClientQuota > 0 {
			more = "raise the client's CPU quota or use another machine"
		}
		return "the client (" + client + "), not the server (" + server + "): the server may hold more; " + more
	case ss:
		return "the server (" + server + "): requests/s is what it holds in this setup"
	default:
		neither := "neither the client (" + client + ") nor the server (" + server + ")"
		if busy := c.busyMachine(); busy != "" {
			return neither + ": the machine was busy (" + busy + "), so it set the pace; measure on a quieter one"
		}
		return neither + ": requests waited between them (round trips, wake-ups, the server's disk or " +
			"backends); more connections (-c) may raise requests/s"
	}
}

// limitErrorShare is the share of failed requests from which the report
// does not say what set the pace.
const limitErrorShare = 0.01

// busyOthersCores is the average number of cores other processes must
// keep busy for the report to blame the machine rather than the path
// between client and server.
const busyOthersCores = 0.25

// busyMachine says what else took the machine's CPUs during the run:
// other processes, the hypervisor, or both; "" when neither took enough
// to matter.
func (c CPU) busyMachine() string {
	var parts []string
	if c.OthersMeasured && c.OthersCores() >= busyOthersCores {
		parts = append(parts, fmt.Sprintf("other processes kept %.2f cores busy", c.OthersCores()))
	}
	if c.StealMeasured && c.Steal.Warn() {
		parts = append(parts, fmt.Sprintf("the hypervisor took %.0f%% of its CPUs", 100*c.Steal.Share()))
	}
	return strings.Join(parts, " and ")
}

// OthersCores is the average number of cores the machine's other
// processes kept busy.
func (c CPU) OthersCores() float64 {
	if c.Wall <= 0 {
		return 0
	}
	return float64(c.Others) / float64(c.Wall)
}

// ClientCapacity is how many cores' worth of CPU time the client could
// use: its cores, or its cgroup quota when that is less (ClientQuota is
// set only then).
func (c CPU) ClientCapacity() float64 {
	if c.ClientQuota > 0 {
		return c.ClientQuota
	}
	return float64(c.ClientCores)
}

// ClientShare is the part of its cores the client used, from 0 to 1.
func (c CPU) ClientShare() float64 {
	if c.Wall <= 0 || c.ClientCapacity() <= 0 {
		return 0
	}
	return float64(c.ClientUser+c.ClientSystem) / float64(c.Wall) / c.ClientCapacity()
}

// busiest returns the process of later that used the largest share of
// its cores since s. A process that is new in later (a worker started
// during the run) counts with all its time.
func busiest(s, later map[int]time.Duration, wall time.Duration) ProcBusy {
	var best ProcBusy
	for pid, t := range later {
		p := ProcBusy{PID: pid, CPU: max(t-s[pid], 0), Cores: machine.ProcessCores(pid)}
		if best.PID == 0 || p.Share(wall) > best.Share(wall) || (p.Share(wall) == best.Share(wall) && pid < best.PID) {
			best = p
		}
	}
	return best
}

// coresText writes a number of cores to two decimals at most: "1", and
// "0.5" when a quota made it a fraction.
func coresText(c float64) string {
	return strconv.FormatFloat(math.Round(c*100)/100, 'f', -1, 64)
}
