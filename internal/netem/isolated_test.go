package netem

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestIsolated: an isolated namespace has loopback only, with the address
// it is given; a listener opened in it serves a command run in it, the
// host's own interfaces are not there, and Close removes it.
func TestIsolated(t *testing.T) {
	ctx := context.Background()
	n, err := Isolate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ip := net.ParseIP("198.18.255.254")
	if err := n.AddAddress(ctx, ip); err != nil {
		t.Fatal(err)
	}
	ln, err := n.Listen(ctx, "tcp", "198.18.255.254:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("inside\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	argv := n.Command([]string{"bash", "-c", "ip -o link; exec 3<>/dev/tcp/198.18.255.254/" + itoa(port) + "; head -1 <&3"})
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v: %s", argv, err, out)
	}
	if s := string(out); strings.Count(s, ": ") != 2 || !strings.Contains(s, " lo: ") || !strings.Contains(s, "inside") {
		t.Errorf("inside the namespace: %q; want loopback alone and the listener's line", s)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(nsPath(n.Name)); !os.IsNotExist(err) {
		t.Errorf("namespace %s after Close: %v; want it gone", n.Name, err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestIsolatedPacket: a packet socket opened in the namespace gets the
// datagrams a command run in it sends to its address.
func TestIsolatedPacket(t *testing.T) {
	ctx := context.Background()
	n, err := Isolate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.AddAddress(ctx, net.ParseIP("198.18.255.253")); err != nil {
		t.Fatal(err)
	}
	pc, err := n.ListenPacket(ctx, "udp", "198.18.255.253:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	port := pc.LocalAddr().(*net.UDPAddr).Port
	argv := n.Command([]string{"bash", "-c", "echo inside >/dev/udp/198.18.255.253/" + itoa(port)})
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v: %s", argv, err, out)
	}
	pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64)
	k, from, err := pc.ReadFrom(buf)
	if err != nil || string(buf[:k]) != "inside\n" || !from.(*net.UDPAddr).IP.Equal(net.ParseIP("198.18.255.253")) {
		t.Errorf("read %q from %v, %v; want \"inside\\n\" from the namespace's address", buf[:k], from, err)
	}
}
