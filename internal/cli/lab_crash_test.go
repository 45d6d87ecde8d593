package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/netem"
)

// TestMain runs, in child processes that tests start, the httpslab whose
// death or broken output they study: HTTPSLAB_CLI_CHILD names which.
func TestMain(m *testing.M) {
	switch os.Getenv("HTTPSLAB_CLI_CHILD") {
	case "lab-killed":
		os.Exit(Run(context.Background(), []string{"lab", "--rtt", "10ms", "--", "sh", "-c", "echo pid $$; exec sleep 60"}, os.Stdout, os.Stdout))
	case "serve-link":
		// As main: Ctrl-C and SIGTERM cancel the context; SIGHUP is serve's.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, []string{"serve", "--rtt", "5ms"}, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	case "httpslab":
		// httpslab itself, with the arguments given: a server that tests
		// start as a command, as a user starts the built binary.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	case "serve-broken-stdout":
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		code := Run(ctx, []string{"serve", "--rtt", "5ms"}, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestLabKilledEndsCommand: when lab itself is killed (SIGKILL, no chance
// to clean up), the command it ran dies with it instead of serving on.
func TestLabKilledEndsCommand(t *testing.T) {
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), "HTTPSLAB_CLI_CHILD=lab-killed")
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
	if !labtest.WaitExit(pid, 5*time.Second) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the command (pid %d) still ran 5s after lab was killed", pid)
	}
}

// TestServeBrokenStdoutCleansUp: serve behind a link whose standard output
// is a closed pipe (httpslab ... | head -1) is not killed by SIGPIPE on its
// first line, which left the namespace behind; it serves on and removes
// the link when stopped.
func TestServeBrokenStdoutCleansUp(t *testing.T) {
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "HTTPSLAB_CLI_CHILD=serve-broken-stdout")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader is gone before httpslab writes a line
	child.Stdout = w
	var errb syncBuffer
	child.Stderr = &errb
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer child.Process.Kill()
	exited := make(chan error, 1)
	ended := make(chan struct{})
	go func() { exited <- child.Wait(); close(ended) }()
	if !errb.waitFor("httpslab: serving", ended, 20*time.Second) {
		select {
		case err := <-exited:
			defer netem.CleanStale()
			t.Fatalf("serve ended (%v) before it was stopped; stderr: %q", err, errb.String())
		default:
		}
	}
	ns := namespaceIn(errb.String())
	child.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of SIGTERM")
	}
	assertNamespaceGone(t, ns)
}

// TestServeHangUpCleansUp: serve behind a link stops on SIGHUP (a closed
// terminal) as on Ctrl-C, removing the namespace and the private CA
// directory (SIGHUP used to kill it and leave both behind).
func TestServeHangUpCleansUp(t *testing.T) {
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "HTTPSLAB_CLI_CHILD=serve-link")
	var errb syncBuffer
	child.Stderr = &errb
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	for end := time.Now().Add(20 * time.Second); !strings.Contains(errb.String(), "httpslab: serving") && time.Now().Before(end); {
		select {
		case err := <-exited:
			defer netem.CleanStale()
			t.Fatalf("serve ended (%v) before it was stopped; stderr: %q", err, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	ns := namespaceIn(errb.String())
	ca := regexp.MustCompile(`CA certificate: (\S+\.pem)`).FindStringSubmatch(errb.String())
	if ca == nil {
		t.Fatalf("no CA certificate path in %q", errb.String())
	}
	child.Process.Signal(syscall.SIGHUP)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve after SIGHUP: %v; want exit 0, as after Ctrl-C", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10s of SIGHUP")
	}
	assertNamespaceGone(t, ns)
	if _, err := os.Stat(filepath.Dir(ca[1])); !os.IsNotExist(err) {
		t.Errorf("the private CA directory %s is still there after SIGHUP (stat: %v)", filepath.Dir(ca[1]), err)
	}
}
