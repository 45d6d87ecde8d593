package load

import (
	"cmp"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// CPU is the processor time spent during a run by this process and by
// the server processes named in Config.ServerPIDs.
type CPU struct {
	ClientUser, ClientSystem time.Duration
	// ClientCores is how many cores the client could use: GOMAXPROCS
	// (which follows the CPU affinity mask), at most the CPUs of that
	// mask, as -t 8 on 2 cores runs on 2.
	ClientCores int
	// ClientQuota is, when the client's cgroups hold it to fewer cores'
	// worth of CPU time than ClientCores (docker --cpus 0.25), that
	// quota; 0 otherwise. Go's threads still span the cores, so only
	// the quota shows that the client was at its ceiling.
	ClientQuota float64
	// Server times are the sum over the named processes and their direct
	// children (nginx workers under their master); ServerMeasured is
	// false when no PID was given or one could not be read.
	ServerUser, ServerSystem time.Duration
	ServerMeasured           bool
	ServerError              string
	// ServerBusiest is the server process that used the largest share
	// of the cores it could use.
	ServerBusiest ProcBusy
	// ServerPort is the port the connections went to. NotListening is
	// set when none of the server processes (nor their children)
	// receives on it: their CPU time is not the server's, unless they
	// are its backend (php-fpm behind nginx). It stays false when that
	// cannot be read.
	ServerPort   int
	NotListening bool
	// Others is the CPU time the machine's other processes used: all of
	// it (/proc/stat) less the client's and the measured server's.
	// OthersMeasured is false where Steal cannot be measured either.
	Others         time.Duration
	OthersMeasured bool
	Wall           time.Duration
	// Steal is the time the hypervisor took from this machine's CPUs
	// during the run; StealMeasured is false where /proc/stat cannot be
	// read and for runs too short for its 10 ms ticks.
	Steal         machine.Steal
	StealMeasured bool
}

// ClientSaturated reports whether the client used at least 90% of the
// cores it had: then the client, not the server, may be the limit.
func (c CPU) ClientSaturated() bool {
	return c.ClientShare() >= saturatedShare
}

// cpuSample is a reading of the counters at one instant.
type cpuSample struct {
	at                    time.Time
	user, sys             time.Duration
	serverUser, serverSys time.Duration
	serverErr             error
	serverPIDs            int
	procs                 map[int]time.Duration // each server process's user+system time
	machine               machine.Sample
}

func readCPU(pids []int) cpuSample {
	s := cpuSample{at: time.Now(), serverPIDs: len(pids), procs: map[int]time.Duration{}}
	s.machine = machine.Read()
	s.user, s.sys = machine.OwnCPU()
	for _, pid := range pids {
		for _, p := range append([]int{pid}, machine.Children(pid)...) {
			u, sy, err := machine.ProcessTimes(p)
			if err != nil {
				s.serverErr = err
				continue
			}
			s.serverUser += u
			s.serverSys += sy
			s.procs[p] = u + sy
		}
	}
	return s
}

// since returns the CPU used between s and later.
func (s cpuSample) since(later cpuSample) CPU {
	c := CPU{
		ClientUser: later.user - s.user, ClientSystem: later.sys - s.sys,
		ClientCores: min(runtime.GOMAXPROCS(0), runtime.NumCPU()), Wall: later.at.Sub(s.at),
	}
	if q, ok := machine.CPUQuota(os.Getpid()); ok && q < float64(c.ClientCores) {
		c.ClientQuota = q
	}
	c.Steal, c.StealMeasured = machine.Between(s.machine, later.machine)
	busy, ok := machine.BusyBetween(s.machine, later.machine)
	if s.serverPIDs > 0 {
		c.ServerMeasured = s.serverErr == nil && later.serverErr == nil
		c.ServerUser = max(later.serverUser-s.serverUser, 0)
		c.ServerSystem = max(later.serverSys-s.serverSys, 0)
		c.ServerBusiest = busiest(s.procs, later.procs, c.Wall)
		if err := cmp.Or(s.serverErr, later.serverErr); err != nil {
			c.ServerError = err.Error()
		}
	}
	c.Others, c.OthersMeasured = max(busy-c.ClientUser-c.ClientSystem-c.ServerUser-c.ServerSystem, 0), ok
	return c
}

// serverListens sets c.ServerPort and c.NotListening from where the
// connections went (IP:port) and the server processes and their children.
func (c *CPU) serverListens(addrs []string, pids []int, udp bool) {
	if len(pids) == 0 || len(addrs) == 0 {
		return
	}
	_, port, err := net.SplitHostPort(addrs[0])
	if err != nil {
		return
	}
	if c.ServerPort, err = strconv.Atoi(port); err != nil {
		return
	}
	var all []int
	for _, pid := range pids {
		all = append(append(all, pid), machine.Children(pid)...)
	}
	listens, err := machine.Listens(all, c.ServerPort, udp)
	c.NotListening = err == nil && !listens
}
