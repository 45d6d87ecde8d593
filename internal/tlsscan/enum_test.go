package tlsscan

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestEnumerateOddReplies checks that a server answering ClientHellos with
// something that is not TLS gets an enumeration with nothing accepted and
// one note per probe, not an error: one per version, one for the
// HelloRetryRequest check, one for TLS 1.2's DH prime and two for its
// group order, asked at once.
func TestEnumerateOddReplies(t *testing.T) {
	addr := labtest.NewMisbehaving(t, labtest.Reply("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")).Addr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := newProber(addr, "", 4, 5*time.Second, nil)
	e, err := enumerate(ctx, p, nil)
	if err != nil {
		t.Fatalf("enumerate(a server that answers in HTTP) = %v; want no error", err)
	}
	if got := e.Supported(); len(got) != 0 {
		t.Errorf("Supported() = %v; want none", got)
	}
	notes := p.notesTaken()
	if want := len(scanVersions) + 4; len(notes) != want {
		t.Errorf("got %d notes; want %d (one per version, one for the HelloRetryRequest check, one for the DH prime, two for the group order): %q",
			len(notes), want, notes)
	}
	for _, n := range notes {
		if !strings.Contains(n, "reading TLS record") || !strings.Contains(n, "ClientHello") {
			t.Errorf("note %q; want the probe and the reason", n)
		}
	}
}

// TestRunInterrupted checks that an audit stopped during the enumeration
// (when the resumption checks start, once it knows the versions and the
// first handshake is done) returns the report so far with the error.
func TestRunInterrupted(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	u, _ := url.Parse(n.HTTPSURL)
	port, _ := strconv.Atoi(u.Port())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := func(check string) {
		if check == "resumption" {
			cancel()
		}
	}
	rep, err := Run(ctx, Config{Host: u.Hostname(), Port: port, Trust: transport.Trust{Insecure: true}, Progress: progress})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run stopped during the enumeration: err = %v; want context.Canceled", err)
	}
	if rep == nil || rep.Enumeration == nil || rep.Negotiated.Version != "TLS 1.3" {
		t.Fatalf("Run stopped during the enumeration: report %+v; want the report so far", rep)
	}
	if !rep.Partial || rep.Findings != nil || !strings.Contains(strings.Join(rep.NotChecked, "\n"), "enumeration stopped") {
		t.Errorf("partial %v, findings %v, not checked %q; want a partial report, no findings and the stop noted",
			rep.Partial, rep.Findings, rep.NotChecked)
	}
}

// TestRunCountsConnections checks the report's connection count against
// the connections a forwarding listener in front of nginx accepted.
func TestRunCountsConnections(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	u, _ := url.Parse(n.HTTPSURL)
	var accepted atomic.Int64
	addr := labtest.ServeTCP(t, func(c net.Conn) {
		accepted.Add(1)
		defer c.Close()
		up, err := net.Dial("tcp", u.Host)
		if err != nil {
			return
		}
		defer up.Close()
		go func() { _, _ = io.Copy(up, c); up.Close() }()
		_, _ = io.Copy(c, up)
	})
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{Host: host, Port: p, Trust: transport.Trust{Insecure: true}, Attempts: 3})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := rep.Connections, accepted.Load(); got != want || got < 50 {
		t.Errorf("report counts %d connections; the listener accepted %d (want equal, and dozens)", got, want)
	}
	t.Logf("%d connections", rep.Connections)
}

// TestGroupsOfTLS10Server: a server without TLS 1.2 has its groups found
// in the newest version it has (they were "none found").
func TestGroupsOfTLS10Server(t *testing.T) {
	t.Parallel()
	if got := groupVersions([]uint16{VersionSSL30, VersionTLS10, VersionTLS11, VersionTLS13}); !slices.Equal(got, []uint16{VersionTLS13, VersionTLS11}) {
		t.Errorf("groupVersions = %04x; want TLS 1.3 and TLS 1.1", got)
	}
	n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1;\nssl_ciphers DEFAULT:@SECLEVEL=0;"})
	u, _ := url.Parse(n.HTTPSURL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := enumerate(ctx, newProber(u.Host, u.Hostname(), 8, 5*time.Second, nil), nil)
	if err != nil {
		t.Fatalf("enumerate: %v", err)
	}
	var names []string
	for _, g := range e.Groups {
		if g.Version == VersionTLS10 {
			names = append(names, g.Name)
		}
	}
	if !slices.Contains(names, "x25519") || !slices.Contains(names, "secp256r1") {
		t.Errorf("TLS 1.0 groups %v; want x25519 and secp256r1 among them", names)
	}
}
