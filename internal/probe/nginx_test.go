package probe

import (
	"context"
	"crypto/tls"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestNginx probes a real nginx: phases for HTTP/1.1 and HTTP/2,
// resumption cross-checked with nginx's own $ssl_session_reused, and a
// HelloRetryRequest forced by a group nginx does not accept.
func TestNginx(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true, TLSDirectives: "ssl_ecdh_curve X25519:P-384;"})
	ca := caFile(t, n.CA)
	for _, proto := range []transport.Protocol{transport.HTTP1, transport.HTTP2} {
		c := newClient(t, Config{URL: n.HTTPSURL + "/16k.bin", Protocol: proto, TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}})
		tl := do(t, c, transport.Fresh)
		assertOrdered(t, tl, PhaseConnect, PhaseTLS, PhaseSend, PhaseWait, PhaseDownload)
		if tl.Bytes.BodySize != 16<<10 || tl.Status != 200 {
			t.Errorf("%s: status %d, body %d B; want 200 and 16 KiB", proto, tl.Status, tl.Bytes.BodySize)
		}
	}

	c := newClient(t, Config{URL: n.HTTPSURL + "/1k.bin", TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}})
	first, second := do(t, c, transport.Resumed), do(t, c, transport.Resumed)
	if first.TLS.Resumed || !second.TLS.Resumed {
		t.Errorf("resumed %v, %v; want false, true", first.TLS.Resumed, second.TLS.Resumed)
	}

	hrr := newClient(t, Config{URL: n.HTTPSURL + "/1k.bin", TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}, Curves: []tls.CurveID{tls.CurveP256, tls.CurveP384}}})
	if tl := do(t, hrr, transport.Fresh); !tl.TLS.HelloRetry || tl.TLS.Group != "secp384r1" {
		t.Errorf("retry %v, group %s; want a HelloRetryRequest for secp384r1", tl.TLS.HelloRetry, tl.TLS.Group)
	}

	// nginx logs a request after answering it: wait, boundedly, for all
	// five (two of /16k.bin, three of /1k.bin).
	log, err := labtest.WaitAccessLog(context.Background(), n, 5)
	if err != nil {
		t.Fatal(err)
	}
	var reused []bool
	for _, e := range log {
		if e.URI == "/1k.bin" {
			reused = append(reused, e.Reused)
		}
	}
	if len(reused) != 3 || reused[0] || !reused[1] || reused[2] {
		t.Errorf("nginx saw session reuse %v; want [false true false]", reused)
	}
}

// TestNginxNoResumption: with tickets and the session cache off, nginx
// cannot resume, and the probe must say so.
func TestNginxNoResumption(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2 TLSv1.3; ssl_session_tickets off; ssl_session_cache off;"})
	c := newClient(t, Config{URL: n.HTTPSURL + "/1k.bin", TLS: transport.TLS{Trust: transport.Trust{CAFile: caFile(t, n.CA)}}})
	first, second := do(t, c, transport.Resumed), do(t, c, transport.Resumed)
	if first.TLS.Resumed || second.TLS.Resumed {
		t.Errorf("resumed %v, %v; want false, false", first.TLS.Resumed, second.TLS.Resumed)
	}
}
