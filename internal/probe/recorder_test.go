package probe

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http/httptrace"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeConn is a net.Conn for GotConn; the recorder only keeps it.
type fakeConn struct{ net.Conn }

// step advances the bubble's clock by d.
func step(d time.Duration) { time.Sleep(d) }

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// TestRecorderPhases drives the hooks in the order a fresh HTTPS request
// fires them, with a failed Happy Eyeballs attempt, and checks phases
// and dial attempts to the microsecond under a fake clock.
func TestRecorderPhases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(time.Now(), nil)
		tr := r.trace()
		step(ms(1))
		tr.DNSStart(httptrace.DNSStartInfo{Host: "x.test"})
		step(ms(2))
		tr.DNSDone(httptrace.DNSDoneInfo{})
		tr.ConnectStart("tcp", "[::1]:443")
		step(ms(1))
		tr.ConnectStart("tcp", "127.0.0.1:443")
		tr.ConnectDone("tcp", "[::1]:443", errors.New("connection refused"))
		step(ms(3))
		tr.ConnectDone("tcp", "127.0.0.1:443", nil)
		tr.TLSHandshakeStart()
		step(ms(5))
		tr.TLSHandshakeDone(tls.ConnectionState{Version: tls.VersionTLS13}, nil)
		tr.GotConn(httptrace.GotConnInfo{Conn: fakeConn{}})
		step(ms(1))
		tr.WroteRequest(httptrace.WroteRequestInfo{})
		step(ms(10))
		tr.GotFirstResponseByte()
		r.gotFinalResponse()
		step(ms(4))
		got := r.seal(time.Now())
		tr.GotFirstResponseByte() // late hooks change nothing
		want := []Phase{
			{PhaseDNS, ms(1), ms(2)}, {PhaseConnect, ms(3), ms(4)}, {PhaseTLS, ms(7), ms(5)},
			{PhaseSend, ms(12), ms(1)}, {PhaseWait, ms(13), ms(10)}, {PhaseDownload, ms(23), ms(4)},
		}
		if diff := cmp.Diff(want, got.ev.Phases()); diff != "" {
			t.Errorf("phases (-want +got):\n%s", diff)
		}
		wantDials := []Dial{
			{Network: "tcp", Addr: "[::1]:443", Start: ms(3), Duration: ms(1), Err: "connection refused"},
			{Network: "tcp", Addr: "127.0.0.1:443", Start: ms(4), Duration: ms(3)},
		}
		if diff := cmp.Diff(wantDials, got.dials); diff != "" {
			t.Errorf("dials (-want +got):\n%s", diff)
		}
	})
}

// TestRecorderLateHooks: HTTP/2 may report GotConn and WroteRequest after
// the response arrived; the socket's last write bounds both.
func TestRecorderLateHooks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var socketWrite time.Time
		r := newRecorder(time.Now(), func(net.Conn) func() time.Time {
			return func() time.Time { return socketWrite }
		})
		tr := r.trace()
		tr.ConnectStart("tcp", "127.0.0.1:443")
		step(ms(1))
		tr.ConnectDone("tcp", "127.0.0.1:443", nil)
		tr.TLSHandshakeStart()
		step(ms(2))
		tr.TLSHandshakeDone(tls.ConnectionState{}, nil)
		step(ms(1))
		socketWrite = time.Now() // the request went out at 4 ms
		step(ms(5))
		tr.GotConn(httptrace.GotConnInfo{Conn: fakeConn{}}) // hook at 9 ms
		step(ms(1))
		tr.GotFirstResponseByte() // 10 ms
		step(ms(2))
		tr.WroteRequest(httptrace.WroteRequestInfo{}) // 12 ms: later than the response
		got := r.seal(time.Now())
		want := []Phase{
			{PhaseConnect, 0, ms(1)}, {PhaseTLS, ms(1), ms(2)},
			{PhaseSend, ms(3), ms(1)}, {PhaseWait, ms(4), ms(6)}, {PhaseDownload, ms(10), ms(2)},
		}
		if diff := cmp.Diff(want, got.ev.Phases()); diff != "" {
			t.Errorf("phases (-want +got):\n%s", diff)
		}
	})
}

// TestRecorderInformational: after a 1xx, the wait phase ends at the
// final response, not at the 1xx's first byte.
func TestRecorderInformational(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder(time.Now(), nil)
		tr := r.trace()
		tr.GotConn(httptrace.GotConnInfo{Conn: fakeConn{}, Reused: true})
		tr.WroteRequest(httptrace.WroteRequestInfo{})
		step(ms(2))
		tr.GotFirstResponseByte()
		tr.Got1xxResponse(103, nil)
		step(ms(3))
		r.gotFinalResponse()
		step(ms(1))
		got := r.seal(time.Now())
		if diff := cmp.Diff([]Informational{{Status: 103, At: ms(2)}}, got.info); diff != "" {
			t.Errorf("informational (-want +got):\n%s", diff)
		}
		want := []Phase{{PhaseSend, 0, 0}, {PhaseWait, 0, ms(5)}, {PhaseDownload, ms(5), ms(1)}}
		if diff := cmp.Diff(want, got.ev.Phases()); diff != "" || !got.reused {
			t.Errorf("phases (-want +got):\n%s; reused %v", diff, got.reused)
		}
	})
}

// TestRecorderQUICDialNotReused: quic-go calls a connection reused when
// its handshake is done by the time the request looks, which a connection
// dialed for the request itself can be; a QUIC dial of the request's own
// makes it a new connection, and without one a reused one stays reused.
func TestRecorderQUICDialNotReused(t *testing.T) {
	for _, tc := range []struct {
		dial string
		want bool
	}{{"udp", false}, {"", true}} {
		r := newRecorder(time.Now(), nil)
		tr := r.trace()
		if tc.dial != "" {
			tr.ConnectStart(tc.dial, "127.0.0.1:443")
			tr.ConnectDone(tc.dial, "127.0.0.1:443", nil)
		}
		tr.GotConn(httptrace.GotConnInfo{Conn: fakeConn{}, Reused: true})
		if got := r.seal(time.Now()).reused; got != tc.want {
			t.Errorf("GotConn reused after dial %q: recorded reused %t; want %t", tc.dial, got, tc.want)
		}
	}
}
