package tlsscan

import (
	"context"
	"crypto/x509"
	"net"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestConcurrencyBoundsEveryConnection audits the embedded server (RSA,
// so that the ROBOT check opens its connections too; its HTTPS and plain
// ports) through proxies that count the connections open at once. At
// Config.Concurrency 1 and 2 there are never more, whichever check opens
// them: the enumeration, the first handshake, the known attacks, the
// HTTP checks, the redirect check, resumption. Every connection the
// report counts went through the proxies, and the audit finds what it
// finds at the default, where more connections are open at once (which
// shows that the count sees them).
func TestConcurrencyBoundsEveryConnection(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{Cert: lab.RSA2048, NoHTTP3: true})
	pool := x509.NewCertPool()
	pool.AddCert(s.CA.Cert)
	u, _ := url.Parse(s.HTTPSURL)
	pu, _ := url.Parse(s.HTTPURL)
	count, addrs := labtest.CountConns(t, u.Host, pu.Host)
	audit := func(concurrency int) *Report {
		t.Helper()
		count.Reset()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		rep, err := Run(ctx, Config{Host: "127.0.0.1", Port: addrPort(t, addrs[0]), HTTPPort: addrPort(t, addrs[1]),
			Trust: transport.Trust{RootCAs: pool}, Attempts: 4, Concurrency: concurrency})
		if err != nil {
			t.Fatalf("Run at concurrency %d: %v", concurrency, err)
		}
		if got := count.Total(); got != int(rep.Connections) {
			t.Errorf("at concurrency %d the proxies saw %d connections, the report counts %d", concurrency, got, rep.Connections)
		}
		t.Logf("concurrency %d: %d connections, at most %d at once, %v; not checked %v", concurrency, rep.Connections, count.Max(), rep.Elapsed, rep.NotChecked)
		return rep
	}
	base := audit(0)
	if got := count.Max(); got <= 2 || got > DefaultConcurrency {
		t.Errorf("at the default concurrency %d connections were open at once; want 3 to %d", got, DefaultConcurrency)
	}
	for _, n := range []int{1, 2} {
		rep := audit(n)
		if got := count.Max(); got > n {
			t.Errorf("at concurrency %d, %d connections were open at once", n, got)
		}
		if diff := cmp.Diff(summarize(base), summarize(rep)); diff != "" {
			t.Errorf("at concurrency %d the audit differs from the default's (-default +got):\n%s", n, diff)
		}
	}
}

// auditSummary is what an audit found, without its timings.
type auditSummary struct {
	Findings        []string
	Vulnerabilities map[string]VulnStatus
	Versions        []VersionResult
	Groups          []GroupResult
	Resumed         int
	NotChecked      []string
}

func summarize(r *Report) auditSummary {
	s := auditSummary{Findings: ids(r), Vulnerabilities: map[string]VulnStatus{}, Versions: r.Enumeration.Versions,
		Groups: r.Enumeration.Groups, Resumed: r.Resumption.Resumed, NotChecked: r.NotChecked}
	for _, v := range r.Vulnerabilities {
		s.Vulnerabilities[v.ID] = v.Status
	}
	return s
}

// addrPort returns the port of a host:port address.
func addrPort(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
