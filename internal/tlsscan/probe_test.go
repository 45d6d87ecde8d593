package tlsscan

import (
	"context"
	"net"
	"testing"
	"testing/synctest"
	"time"
)

// TestProberBacksOff checks that a refused connection is retried after
// pauses of 25, 50, 100 and 200 ms, then reported, in fake time.
func TestProberBacksOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: every connect is refused at once
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
