package lab_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestCommandClose checks that Close ends the server and what it started
// in its process group, and that the server's output is kept.
func TestCommandClose(t *testing.T) {
	p, err := lab.StartCommand(context.Background(), lab.CommandConfig{Line: `sh -c 'echo started; sleep 60 & echo child $!; wait'`})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	deadline := time.Now().Add(5 * time.Second)
	for child == 0 && time.Now().Before(deadline) {
		for _, l := range p.OutputLines(2) {
			if s, ok := strings.CutPrefix(l, "child "); ok {
				child, _ = strconv.Atoi(s)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if child == 0 {
		t.Fatalf("no child announced; output %q", p.OutputLines(5))
	}
	if p.ExitError() != nil {
		t.Fatalf("ExitError() = %v while it runs; want nil", p.ExitError())
	}
	p.Close()
	if !labtest.WaitExit(child, 5*time.Second) {
		t.Errorf("the server's child %d outlived Close", child)
	}
	if err := p.ExitError(); err == nil || !strings.Contains(err.Error(), "the server stopped") {
		t.Errorf("ExitError() after Close = %v; want how it ended", err)
	}
}

// TestCommandExits checks the message of a server that ends at once.
func TestCommandExits(t *testing.T) {
	p, err := lab.StartCommand(context.Background(), lab.CommandConfig{Line: `sh -c 'echo bad flag >&2; exit 3'`})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	<-p.Exited()
	if err := p.ExitError(); err == nil || err.Error() != "the server stopped: it exited (exit status 3): bad flag" {
		t.Errorf("ExitError() = %v; want the exit status and the last line", err)
	}
}
