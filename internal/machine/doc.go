// Package machine is httpslab's one reader of the machine it runs on:
// /proc, the cgroup hierarchy and the process's own limits. It reads what
// the machine did while httpslab measured: the CPU time a hypervisor took
// from it (steal time) and the CPU time all its processes used (on a
// virtual machine whose host is busy, steal slows client and server alike
// by an amount that changes from second to second; on a shared machine,
// other processes do the same, and the reports say so rather than present
// such a run as the tools' doing). It reads the processes: their CPU
// time, children, the cores they may keep busy (threads, affinity, cgroup
// CPU quota), whether they are alive and which sockets they listen on.
// And it reads the limits a load run must stay under: open files and
// local ports.
package machine
