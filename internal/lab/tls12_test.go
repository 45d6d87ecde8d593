package lab_test

import (
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestNoHTTP3BelowTLS13: QUIC runs on TLS 1.3 only, so a server capped at
// TLS 1.2 neither listens for HTTP/3 nor advertises it with Alt-Svc (it
// did both, and every QUIC handshake failed with "protocol version not
// supported").
func TestNoHTTP3BelowTLS13(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{MaxVersion: tls.VersionTLS12})
	if s.HTTP3 {
		t.Errorf("Server.HTTP3 = true with MaxVersion TLS 1.2; want false")
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}}, Timeout: 10 * time.Second}
	resp, _ := get(t, c, s.HTTPSURL+"/")
	if resp.TLS.Version != tls.VersionTLS12 {
		t.Errorf("negotiated %s; want TLS 1.2", tls.VersionName(resp.TLS.Version))
	}
	if v := resp.Header.Get("Alt-Svc"); v != "" {
		t.Errorf("Alt-Svc = %q from a TLS 1.2 server; want none", v)
	}
	// A QUIC listener capped at TLS 1.2 would fail every handshake too, so
	// a dial proves nothing: the UDP port itself must be free.
	addr := resp.Request.URL.Host
	udp, err := net.ListenPacket("udp", addr)
	if err != nil {
		t.Errorf("UDP %s is taken (%v); want no HTTP/3 listener there", addr, err)
	} else {
		udp.Close()
	}
}
