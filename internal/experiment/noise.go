package experiment

import (
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// Noise is what else the machine did while one measurement ran: the
// randomised blocks spread it over the variants, and it is recorded so
// that a noisy block can be seen in the raw samples.
type Noise struct {
	// OtherCores is the CPU time the machine's other processes used (all
	// of it, less httpslab's and the server's), as a number of cores kept
	// busy on average; StealShare is the share of the machine's CPU time
	// the hypervisor took.
	OtherCores float64 `json:"other_cores"`
	StealShare float64 `json:"steal_share"`
}

// noiseMeter reads the counters before a measurement.
type noiseMeter struct {
	m      machine.Sample
	own    time.Duration
	server time.Duration
	pids   []int
}

func startNoise(pids []int) noiseMeter {
	u, s := machine.OwnCPU()
	srv, _ := serverCPU(pids)
	return noiseMeter{m: machine.Read(), own: u + s, server: srv, pids: pids}
}

// stop returns the noise since start, nil where /proc/stat cannot tell
// (a run too short for its 10 ms ticks), and the server's CPU time since
// start, with false where it could not be read.
func (n noiseMeter) stop() (*Noise, time.Duration, bool) {
	m := machine.Read()
	u, s := machine.OwnCPU()
	srv, srvOK := serverCPU(n.pids)
	server := max(srv-n.server, 0)
	busy, ok := machine.BusyBetween(n.m, m)
	steal, ok2 := machine.Between(n.m, m)
	wall := m.At.Sub(n.m.At)
	if !ok || !ok2 || wall <= 0 {
		return nil, server, srvOK
	}
	others := max(busy-(u+s-n.own)-server, 0)
	return &Noise{OtherCores: float64(others) / float64(wall), StealShare: steal.Share()}, server, srvOK
}

// serverCPU sums the CPU time of the server's processes and their
// children (nginx's workers under its master), in nanoseconds from the
// scheduler's accounting, or in /proc's 10 ms ticks where the kernel
// keeps no schedstat.
func serverCPU(pids []int) (time.Duration, bool) {
	var sum time.Duration
	for _, pid := range pids {
		for _, p := range append([]int{pid}, machine.Children(pid)...) {
			ns, err := machine.ProcessRuntime(p)
			if err != nil {
				u, s, err := machine.ProcessTimes(p)
				if err != nil {
					return 0, false
				}
				ns = u + s
			}
			sum += ns
		}
	}
	return sum, len(pids) > 0
}
