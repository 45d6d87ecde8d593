//go:build !race

// These tests make 0-RTT requests over HTTP/3. quic-go races with itself
// when a 0-RTT connection opens streams while the handshake applies the
// server's transport parameters (quic-go issue #4303, open), so a binary
// built with -race leaves them out; the test command runs the suite a
// second time without -race, where they run.

package probe

import (
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

func TestZeroRTT(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	c := newClient(t, Config{URL: srv.HTTPSURL + "/", Protocol: transport.HTTP3, TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, srv.CA)}}})
	first, second := do(t, c, transport.ZeroRTT), do(t, c, transport.ZeroRTT)
	if first.TLS.EarlyData || !second.TLS.EarlyData || !second.TLS.Resumed {
		t.Errorf("early data: first %v, second %v (resumed %v); want false, true (true)", first.TLS.EarlyData, second.TLS.EarlyData, second.TLS.Resumed)
	}
	if second.Status != 200 {
		t.Errorf("0-RTT status %d; want 200", second.Status)
	}
}
