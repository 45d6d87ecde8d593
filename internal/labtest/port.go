package labtest

import (
	"net"
	"strconv"
	"testing"
)

// FreePort returns a loopback port of network ("tcp" or "udp") that
// nothing listens on: for a test of a refused connection, or for a server
// the test starts on it later (another process could take it in between,
// which a test on loopback can live with).
func FreePort(t testing.TB, network string) int {
	t.Helper()
	if network == "udp" {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		return pc.LocalAddr().(*net.UDPAddr).Port
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// ClosedAddr returns "127.0.0.1:PORT" with a FreePort of network.
func ClosedAddr(t testing.TB, network string) string {
	t.Helper()
	return "127.0.0.1:" + strconv.Itoa(FreePort(t, network))
}
