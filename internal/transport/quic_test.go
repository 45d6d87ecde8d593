package transport

import (
	"context"
	"crypto/tls"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// attemptLog records the connect attempts reported to a trace.
type attemptLog struct {
	mu     sync.Mutex
	starts map[string]int
	dones  map[string]int
	errs   []string // "addr: problem" for a done without its start
}

func (a *attemptLog) trace(ctx context.Context) context.Context {
	a.starts, a.dones = map[string]int{}, map[string]int{}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(_, addr string) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.starts[addr]++
		},
		ConnectDone: func(_, addr string, _ error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.dones[addr]++
			if a.dones[addr] > a.starts[addr] {
				a.errs = append(a.errs, addr+": ConnectDone without a ConnectStart before it")
			}
		},
	})
}

// check fails t unless every address had as many ConnectDone as
// ConnectStart, at most one each.
func (a *attemptLog) check(t *testing.T, when string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.errs {
		t.Errorf("%s: %s", when, e)
	}
	for addr, n := range a.starts {
		if n != 1 || a.dones[addr] != 1 {
			t.Errorf("%s: %s had %d ConnectStart and %d ConnectDone; want 1 and 1", when, addr, n, a.dones[addr])
		}
	}
	for addr, n := range a.dones {
		if a.starts[addr] == 0 {
			t.Errorf("%s: %s had %d ConnectDone and no ConnectStart", when, addr, n)
		}
	}
}

func TestDialQUICOneConnectDonePerStart(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	u, err := url.Parse(srv.HTTPSURL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	// Only 127.0.0.1 answers: the first address is given up on once the
	// second wins, the third is dialed only if the second is slow.
	addrs := []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.3")}
	d := &Dialer{Routes: Routes{Resolve: []Resolve{{Host: "x.test", Port: port, Addrs: addrs}}}}
	var a attemptLog
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := &tls.Config{RootCAs: srv.CA.Pool(), ServerName: "localhost", NextProtos: []string{"h3"}}
	qc, err := d.DialQUIC(a.trace(ctx), "x.test:"+strconv.Itoa(port), cfg, nil)
	if err != nil {
		t.Fatalf("DialQUIC: %v", err)
	}
	defer qc.CloseWithError(0, "")
	if got, want := qc.RemoteAddr().String(), "127.0.0.1:"+strconv.Itoa(port); got != want {
		t.Errorf("connected to %s; want %s", got, want)
	}
	a.check(t, "on return")
	// The attempts that lost, the one still dialing and the one whose
	// turn had not come, report nothing once they have ended.
	qc.attempts.Wait()
	a.check(t, "after every attempt ended")
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.starts["127.0.0.2:"+strconv.Itoa(port)] != 1 {
		t.Errorf("ConnectStart = %v; want the first address dialed", a.starts)
	}
}
