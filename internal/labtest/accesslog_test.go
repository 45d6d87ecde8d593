package labtest

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestWaitAccessLog waits for the line of a request to nginx, then for a
// line that never comes: a cancel ends that wait at once, not after the
// 5 s bound.
func TestWaitAccessLog(t *testing.T) {
	n := StartNginx(t, lab.NginxConfig{})
	resp, err := http.Get(n.HTTPURL + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	log, err := WaitAccessLog(context.Background(), n, 1)
	if err != nil || len(log) != 1 || log[0].URI != "/index.html" {
		t.Fatalf("WaitAccessLog(1) = %+v, %v; want the one request", log, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	log, err = WaitAccessLog(ctx, n, 2)
	if !errors.Is(err, context.Canceled) || len(log) != 1 || time.Since(start) > 2*time.Second {
		t.Errorf("WaitAccessLog(2), cancelled after 100ms = %d lines, %v after %v; want 1, context.Canceled, at once",
			len(log), err, time.Since(start))
	}
}
