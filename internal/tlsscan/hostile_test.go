package tlsscan

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// auditHostile audits a misbehaving TLS server in mode.
func auditHostile(t *testing.T, mode labtest.Mode) *Report {
	t.Helper()
	s := labtest.NewMisbehaving(t, labtest.TLS(mode))
	_, p, _ := net.SplitHostPort(s.Addr)
	port, _ := strconv.Atoi(p)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := Run(ctx, Config{Host: "127.0.0.1", Port: port, Trust: transport.Trust{RootCAs: s.CA.Pool()}, Attempts: 2})
	if err != nil {
		t.Fatalf("auditing a server in mode %s: %v", mode, err)
	}
	return rep
}

// TestAuditHeaderLimit: a server whose response header never ends is
// refused at the header limit by every HTTP check (audit used to run out
// of memory in seconds); the audit goes on and lists the checks it could
// not make.
func TestAuditHeaderLimit(t *testing.T) {
	start := time.Now()
	rep := auditHostile(t, labtest.HeadersForever)
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
	three := labtest.Reply(strings.Repeat("HTTP/1.1 102 Processing\r\n\r\n", 3) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	if rep := auditHostile(t, three); rep.HTTP.Status != 200 {
		t.Errorf("three 102, then 200: status %d; want 200 (not checked: %q)", rep.HTTP.Status, rep.NotChecked)
	}
	rep := auditHostile(t, labtest.InformationalForever)
	if rep.HTTP.Status != 0 || !strings.Contains(strings.Join(rep.NotChecked, "\n"), "too many informational (1xx) responses") {
		t.Errorf("1xx forever: status %d, not checked %q; want no status and the 1xx loop named", rep.HTTP.Status, rep.NotChecked)
	}
}

// TestAuditTimeLimit: against a server that answers one byte a second,
// audit stops at MaxTime with ErrTimeLimit and the report of what it
// measured (it ran for minutes), and calls the response slow, not
// malformed.
func TestAuditTimeLimit(t *testing.T) {
	t.Parallel()
	s := labtest.NewMisbehaving(t, labtest.TLS(labtest.Trickle("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", time.Second)))
	_, p, _ := net.SplitHostPort(s.Addr)
	port, _ := strconv.Atoi(p)
	start := time.Now()
	rep, err := Run(context.Background(), Config{Host: "127.0.0.1", Port: port, Trust: transport.Trust{RootCAs: s.CA.Pool()}, Timeout: 10 * time.Second, MaxTime: 3 * time.Second})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("audit took %v; want it stopped at MaxTime, 3s", took)
	}
	if !errors.Is(err, ErrTimeLimit) || rep == nil {
		t.Fatalf("Run = %v, report %v; want ErrTimeLimit and the report", err, rep != nil)
	}
	notChecked := strings.Join(rep.NotChecked, "\n")
	for _, want := range []string{"record size: reading the response to GET /: the server is too slow: ", "the audit reached its time limit"} {
		if !strings.Contains(notChecked, want) {
			t.Errorf("not checked:\n%s\nwant %q", notChecked, want)
		}
	}
	if strings.Contains(notChecked, "malformed") {
		t.Errorf("not checked:\n%s\nwant the slow response called slow, not malformed", notChecked)
	}
	if rep.Negotiated.Version != "TLS 1.3" || len(rep.Chain.Certs) == 0 {
		t.Errorf("negotiated %+v, chain %+v; want what was measured in time", rep.Negotiated, rep.Chain)
	}
}
