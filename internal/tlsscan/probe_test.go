package tlsscan

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
)

// TestProberBacksOff checks that a refused connection is retried after
// pauses of 25, 50, 100 and 200 ms, then reported, in fake time.
func TestProberBacksOff(t *testing.T) {
	addr := labtest.ClosedAddr(t, "tcp") // every connect is refused at once
	synctest.Test(t, func(t *testing.T) {
		p := newProber(addr, "", 2, time.Second, nil)
		start := time.Now()
		_, err := p.send(context.Background(), clientHello{version: VersionTLS12, suites: []uint16{0xC02B}}, false)
		if !refused(err) {
			t.Fatalf("send to a closed port: err = %v; want a refused connection", err)
		}
		if got, want := time.Since(start), 375*time.Millisecond; got != want {
			t.Errorf("gave up after %v; want %v of back-off", got, want)
		}
	})
}

func TestRefusedIsOnlyForDialing(t *testing.T) {
	if refused(context.DeadlineExceeded) {
		t.Error("refused(deadline exceeded) = true; want false")
	}
}
