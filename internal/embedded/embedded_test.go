package embedded

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
)

// get fetches u with the server's CA as the only root and returns the
// time the request took.
func get(t *testing.T, srv *Server, u string) time.Duration {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CA.Pool()}}, Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	start := time.Now()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", u, resp.StatusCode, err)
	}
	return time.Since(start)
}

func hostAddr(t *testing.T, raw string) netip.Addr {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, err := netip.ParseAddr(u.Hostname())
	if err != nil {
		t.Fatalf("%s: host is no address: %v", raw, err)
	}
	return a
}

func TestStartLoopback(t *testing.T) {
	srv, err := Start(context.Background(), Config{Server: lab.Config{NoHTTP3: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.Link != nil || !hostAddr(t, srv.HTTPSURL).IsLoopback() {
		t.Errorf("no link asked for: link %v, URL %s; want none and loopback", srv.Link, srv.HTTPSURL)
	}
	if got, want := srv.Describe(), "the embedded server on loopback"; got != want {
		t.Errorf("Describe() = %q; want %q", got, want)
	}
	// Without HTTP/3 the notes say why only when it was not turned off.
	if n := srv.Notes(true); len(n) != 0 {
		t.Errorf("Notes(noHTTP3) = %q; want none", n)
	}
	if n := srv.Notes(false); len(n) != 1 || !strings.HasPrefix(n[0], "no HTTP/3: ") {
		t.Errorf("Notes() = %q; want why HTTP/3 is off", n)
	}
	get(t, srv, srv.HTTPSURL+"/")
	get(t, srv, srv.HTTPURL+"/")
}

// TestStartBehindLink: the server listens on its address behind the link
// (needs root, as CI runs), a request through it takes its round trips,
// and Close removes the link.
func TestStartBehindLink(t *testing.T) {
	link := netem.Config{RTT: 40 * time.Millisecond}
	srv, err := Start(context.Background(), Config{Server: lab.Config{NoHTTP3: true}, Link: &link})
	if err != nil {
		t.Fatal(err)
	}
	bench := netip.MustParsePrefix("198.18.0.0/15")
	if srv.Link == nil || !bench.Contains(hostAddr(t, srv.HTTPSURL)) || !bench.Contains(hostAddr(t, srv.HTTPURL)) {
		t.Fatalf("behind a link: link %v, URLs %s and %s; want a link and addresses in %s", srv.Link, srv.HTTPURL, srv.HTTPSURL, bench)
	}
	if d := srv.Describe(); !strings.Contains(d, "behind an emulated link (rtt 40ms)") {
		t.Errorf("Describe() = %q; want the link named", d)
	}
	if n := srv.Notes(true); len(n) != 1 || n[0] != "behind an emulated link: rtt 40ms, namespace "+srv.Link.Namespace {
		t.Errorf("Notes() = %q; want the link and its namespace", n)
	}
	// TCP connect, TLS 1.3 and the request: at least three round trips.
	if d := get(t, srv, srv.HTTPSURL+"/"); d < 3*link.RTT {
		t.Errorf("HTTPS request behind a 40 ms link took %v; want at least 3 RTT", d)
	}
	dev := srv.Link.Device
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if _, err := net.InterfaceByName(dev); err == nil {
		t.Errorf("device %s still exists after Close", dev)
	}
}

// TestStartBadLink: a link that cannot be built is a LinkError.
func TestStartBadLink(t *testing.T) {
	bad := netem.Config{RTT: -time.Second}
	_, err := Start(context.Background(), Config{Link: &bad})
	if _, ok := errors.AsType[*LinkError](err); !ok {
		t.Errorf("Start with RTT -1s = %v; want a LinkError", err)
	}
}

// TestStartServerFailsBehindLink: a server that cannot start is no
// LinkError, and the link built for it is removed (needs root).
func TestStartServerFailsBehindLink(t *testing.T) {
	link := netem.Config{RTT: 10 * time.Millisecond}
	_, err := Start(context.Background(), Config{Server: lab.Config{Cert: "bogus"}, Link: &link})
	if _, ok := errors.AsType[*LinkError](err); err == nil || ok {
		t.Fatalf("Start with a bogus certificate kind = %v; want the server's error", err)
	}
	left, _ := filepath.Glob(fmt.Sprintf("/run/netns/httpslab-%d-*", os.Getpid()))
	if len(left) > 0 {
		t.Errorf("namespaces left behind after a failed start: %v", left)
	}
}
