package tlsscan

import (
	"bufio"
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// hostileBound bounds what a hostile test server sends on one connection,
// so that a client that does not stop it cannot make it run forever.
const hostileBound = 64 << 20

// hostileTLS serves TLS on loopback with a certificate of a new lab CA:
// each connection that completes a handshake is answered by answer, after
// the request's header was read. It returns the port and the CA.
func hostileTLS(t *testing.T, answer func(c net.Conn)) (int, *lab.CA) {
	t.Helper()
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(lab.ECDSAP256, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{leaf.TLS}}
	addr := labtest.ServeTCP(t, func(c net.Conn) {
		tc := tls.Server(c, cfg)
		defer tc.Close()
		if tc.Handshake() != nil {
			return
		}
		br := bufio.NewReader(tc)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		answer(tc)
	})
	_, p, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(p)
	return port, ca
}

// headersForever sends a status line and then header fields of 1000
// bytes each, without end (up to hostileBound).
func headersForever(c net.Conn) {
	line := []byte("X-Pad: " + strings.Repeat("p", 1000) + "\r\n")
	c.Write([]byte("HTTP/1.1 200 OK\r\n"))
	for sent := 0; sent < hostileBound; sent += len(line) {
		if _, err := c.Write(line); err != nil {
			return
		}
	}
}

// TestAuditHeaderLimit: a server whose response header never ends is
// refused at the header limit by every HTTP check (audit used to run out
// of memory in seconds); the audit goes on and lists the checks it could
// not make.
func TestAuditHeaderLimit(t *testing.T) {
	port, ca := hostileTLS(t, headersForever)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	rep, err := Run(ctx, Config{Host: "127.0.0.1", Port: port, RootCAs: ca.Pool(), Attempts: 2, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("audit took %v; want the header refused at once, not waited out", took)
	}
	want := map[string]bool{"record size": false, "http": false}
	for _, n := range rep.NotChecked {
		check, _, _ := strings.Cut(n, ":")
		if _, ok := want[check]; ok && strings.Contains(n, "larger than the limit of 1048576 bytes") {
			want[check] = true
		}
	}
	for check, seen := range want {
		if !seen {
			t.Errorf("not checked %q; want %s refused at the header limit", rep.NotChecked, check)
		}
	}
}

// TestAuditInformational: audit reports the page's final status after 1xx
// responses (it reported HTTP 102), and a 1xx loop is cut at
// transport.MaxInformational.
func TestAuditInformational(t *testing.T) {
	tests := []struct {
		name       string
		n          int
		wantStatus int
	}{
		{"three 102, then 200", 3, 200},
		{"1xx forever", hostileBound, 0},
	}
	for _, tt := range tests {
		port, ca := hostileTLS(t, func(c net.Conn) {
			for i := 0; i < tt.n; i++ {
				if _, err := c.Write([]byte("HTTP/1.1 102 Processing\r\n\r\n")); err != nil {
					return
				}
			}
			c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"))
		})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		rep, err := Run(ctx, Config{Host: "127.0.0.1", Port: port, RootCAs: ca.Pool(), Attempts: 2})
		cancel()
		if err != nil {
			t.Fatalf("%s: Run: %v", tt.name, err)
		}
		if rep.HTTP.Status != tt.wantStatus {
			t.Errorf("%s: status %d; want %d (not checked: %q)", tt.name, rep.HTTP.Status, tt.wantStatus, rep.NotChecked)
		}
		if tt.wantStatus == 0 && !strings.Contains(strings.Join(rep.NotChecked, "\n"), "too many informational (1xx) responses") {
			t.Errorf("%s: not checked %q; want the 1xx loop named", tt.name, rep.NotChecked)
		}
	}
}
