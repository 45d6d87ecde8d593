package machine

import (
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"
)

func TestSocketInodes(t *testing.T) {
	// Lines of /proc/net/tcp: a listener on 127.0.0.1:8443 (0x20FB), a
	// connection from port 8443, a listener on another port.
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:20FB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41234 1 0000000000000000 100 0 0 10 0
   1: 0100007F:20FB 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 41240 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0000000000000000 100 0 0 10 0
`
	var got []string
	for ino := range socketInodes(table, 8443, "0A") {
		got = append(got, ino)
	}
	if !slices.Equal(got, []string{"41234"}) {
		t.Errorf("socketInodes(8443, LISTEN) = %v; want [41234]", got)
	}
}

// TestListens opens real sockets in this process and asks about them,
// and about a process that holds none.
func TestListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	tcpPort, udpPort := ln.Addr().(*net.TCPAddr).Port, pc.LocalAddr().(*net.UDPAddr).Port
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	self, other := os.Getpid(), cmd.Process.Pid
	for _, tt := range []struct {
		name string
		pids []int
		port int
		udp  bool
		want bool
	}{
		{"tcp listener", []int{other, self}, tcpPort, false, true},
		{"udp socket", []int{self}, udpPort, true, true},
		{"tcp port asked as udp", []int{self}, tcpPort, true, false},
		{"another process", []int{other}, tcpPort, false, false},
	} {
		got, err := Listens(tt.pids, tt.port, tt.udp)
		if err != nil || got != tt.want {
			t.Errorf("%s: Listens = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if got, err := Listens([]int{-1}, tcpPort, false); got || err == nil {
		t.Errorf("Listens of no process = %v, %v; want false and an error", got, err)
	}
}
