package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/netem"
)

// TestMain runs, in a child process that TestLabKilledEndsCommand starts
// and kills, the lab it kills.
func TestMain(m *testing.M) {
	if os.Getenv("HTTPSLAB_LAB_CRASH_CHILD") == "1" {
		os.Exit(Run(context.Background(), []string{"lab", "--rtt", "10ms", "--", "sh", "-c", "echo pid $$; exec sleep 60"}, os.Stdout, os.Stdout))
	}
	os.Exit(m.Run())
}

// TestLabKilledEndsCommand: when lab itself is killed (SIGKILL, no chance
// to clean up), the command it ran dies with it instead of serving on.
func TestLabKilledEndsCommand(t *testing.T) {
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), "HTTPSLAB_LAB_CRASH_CHILD=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Process.Kill()
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	pid, announced := 0, false
	deadline := time.After(20 * time.Second)
	for pid == 0 || !announced {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("lab ended before the command ran (pid %d, announced %v)", pid, announced)
			}
			if m := regexp.MustCompile(`^pid (\d+)$`).FindStringSubmatch(l); m != nil {
				pid, _ = strconv.Atoi(m[1])
			}
			announced = announced || strings.Contains(l, "behind an emulated link")
		case <-deadline:
			t.Fatal("lab did not start the command within 20s")
		}
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	// The namespace stays until a run cleans it, as after any crash.
	defer netem.CleanStale()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if !processRuns(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("the command (pid %d) still ran 5s after lab was killed", pid)
}

// processRuns reports whether pid exists and is not a zombie.
func processRuns(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
