package netem

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/machine"
)

// holdEnv makes the test binary, re-executed by TestStaleLinkCleanedUp,
// build a link, start a process inside it, print what it made and wait to
// be killed.
const holdEnv = "HTTPSLAB_NETEM_HOLD_LINK"

// tryEnv makes the re-executed test binary try Start once and report
// whether it failed with ErrPermission, for TestStartWithoutRoot.
const tryEnv = "HTTPSLAB_NETEM_TRY_START"

func TestMain(m *testing.M) {
	if os.Getenv(holdEnv) != "" {
		os.Exit(holdLink())
	}
	if os.Getenv(tryEnv) != "" {
		l, err := Start(context.Background(), Config{RTT: time.Millisecond})
		fmt.Println(err)
		if l != nil {
			l.Close()
		}
		if !errors.Is(err, ErrPermission) {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestStartWithoutRoot runs Start as the unprivileged user nobody: it must
// fail with ErrPermission and a message that says root is needed.
func TestStartWithoutRoot(t *testing.T) {
	// The build directory is private to root; nobody needs a copy it can run.
	dir, err := os.MkdirTemp("", "httpslab-netem-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "netem.test")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), tryEnv+"=1")
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "needs root") {
		t.Errorf("Start as nobody said %q (exit: %v); want ErrPermission saying root is needed", out, err)
	}
}

func holdLink() int {
	l, err := Start(context.Background(), Config{RTT: 10 * time.Millisecond})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	argv := l.Command([]string{"sleep", "60"})
	sleeper := exec.Command(argv[0], argv[1:]...)
	if err := sleeper.Start(); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(l.Namespace, l.Device, sleeper.Process.Pid)
	time.Sleep(60 * time.Second) // bounded: the test kills it long before
	return 0
}

// TestStaleLinkCleanedUp kills a process that holds a link with SIGKILL,
// so that it cannot clean up, and checks that its devices went with it
// and that the next Start removes its namespace and what ran inside.
func TestStaleLinkCleanedUp(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the link holder: %v", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 3 || f[0] == "error" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("link holder said %q (%v); want namespace, device and pid", line, err)
	}
	ns, dev := f[0], f[1]
	sleeper, _ := strconv.Atoi(f[2])
	if _, err := net.InterfaceByName(dev); err != nil {
		t.Errorf("device %s of the live holder: %v", dev, err)
	}
	cmd.Process.Kill()
	cmd.Wait()

	if !eventually(func() bool { _, err := net.InterfaceByName(dev); return err != nil }) {
		t.Errorf("device %s outlived its process", dev)
	}
	// Tests of other packages running at the same time may build links,
	// and so clean the stale namespace, before this test does.
	if _, err := os.Stat(nsPath(ns)); err != nil {
		t.Logf("namespace %s already cleaned by another process's Start", ns)
	} else if !machine.Alive(sleeper) {
		t.Fatalf("the process inside %s ended with its parent; want it left behind to clean", ns)
	}

	l := startTestLink(t, Config{})
	if _, err := os.Stat(nsPath(ns)); !os.IsNotExist(err) {
		t.Errorf("namespace %s still there after a later Start (stat: %v)", ns, err)
	}
	if !labtest.WaitExit(sleeper, 2*time.Second) {
		t.Errorf("process %d inside the stale namespace still runs after a later Start", sleeper)
	}
	if l.Namespace == ns {
		t.Errorf("new link reuses the stale name %s", ns)
	}
}

// eventually polls cond for up to two seconds.
func eventually(cond func() bool) bool {
	for range 200 {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestCloseTwiceAndStats(t *testing.T) {
	l := startTestLink(t, Config{RTT: 2 * time.Millisecond})
	ln, err := l.Listen(context.Background(), "tcp", net.JoinHostPort(l.ServerIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.DialTimeout("tcp", ln.Addr().String(), 2*time.Second)
	if err != nil {
		t.Fatalf("dialing through the link: %v", err)
	}
	c.Close()
	// The last ACK may still be on the link when Dial returns.
	if !eventually(func() bool { st := l.Stats(); return st.ToServer.Packets >= 2 && st.ToClient.Packets >= 1 }) {
		t.Errorf("Stats() = %+v; want the handshake's packets", l.Stats())
	}
	if err := l.Close(); err != nil {
		t.Errorf("first Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

var benchmarkNet = netip.MustParsePrefix("198.18.0.0/15")

func TestLinksCoexist(t *testing.T) {
	a := startTestLink(t, Config{RTT: 2 * time.Millisecond})
	b := startTestLink(t, Config{RTT: 2 * time.Millisecond})
	if a.ServerIP.Equal(b.ServerIP) || a.Device == b.Device || a.Namespace == b.Namespace {
		t.Fatalf("two links share an address, device or namespace: %v/%s/%s and %v/%s/%s",
			a.ServerIP, a.Device, a.Namespace, b.ServerIP, b.Device, b.Namespace)
	}
	for _, l := range []*Link{a, b} {
		if a, _ := netip.AddrFromSlice(l.ServerIP.To4()); !benchmarkNet.Contains(a) {
			t.Errorf("server address %v is outside 198.18.0.0/15", l.ServerIP)
		}
		ln, err := l.Listen(context.Background(), "tcp", net.JoinHostPort(l.ServerIP.String(), "0"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 2*time.Second)
		if err != nil {
			t.Errorf("dialing %v: %v", ln.Addr(), err)
		} else {
			c.Close()
		}
		ln.Close()
	}
}

// TestDeviceQueues: both devices of a link queue tunQueue packets, so that
// a burst sent while the forwarder waits for a core is not lost in the
// kernel (the TUN default, 500 packets, lost a tenth of a browser's page).
func TestDeviceQueues(t *testing.T) {
	l := startTestLink(t, Config{RTT: 2 * time.Millisecond})
	for _, argv := range [][]string{
		{"ip", "-j", "link", "show", "dev", l.Device},
		{"ip", "-j", "-n", l.Namespace, "link", "show", "dev", l.Device},
	} {
		out, err := exec.Command(argv[0], argv[1:]...).Output()
		if err != nil {
			t.Fatalf("%v: %v", argv, err)
		}
		var links []struct {
			TxQLen int `json:"txqlen"`
		}
		if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
			t.Fatalf("%v: %s (%v)", argv, out, err)
		}
		if links[0].TxQLen != tunQueue {
			t.Errorf("%v: transmit queue of %d packets; want %d", argv, links[0].TxQLen, tunQueue)
		}
	}
}
