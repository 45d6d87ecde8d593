package tlsscan

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/httpslab/httpslab/internal/transport"
)

// testZone is the DNS of a test name server: records by owner name. A
// name that owns no record but has one below it exists (an empty
// non-terminal); any other is NXDOMAIN. Names in servfail get SERVFAIL.
type testZone struct {
	mu       sync.Mutex
	records  map[string][]dns.RR
	servfail map[string]bool
	queries  int
}

func (z *testZone) add(t *testing.T, rr string) {
	t.Helper()
	r, err := dns.NewRR(rr)
	if err != nil {
		t.Fatalf("dns.NewRR(%q): %v", rr, err)
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	name := strings.ToLower(r.Header().Name)
	z.records[name] = append(z.records[name], r)
}

func (z *testZone) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.queries++
	m := new(dns.Msg)
	m.SetReply(req)
	q := req.Question[0]
	name := strings.ToLower(q.Name)
	exists := len(z.records[name]) > 0
	for owner := range z.records {
		exists = exists || strings.HasSuffix(owner, "."+name)
	}
	switch {
	case z.servfail[name]:
		m.Rcode = dns.RcodeServerFailure
	case !exists:
		m.Rcode = dns.RcodeNameError
	}
	for _, rr := range z.records[name] {
		if rr.Header().Rrtype == q.Qtype {
			m.Answer = append(m.Answer, rr)
		}
	}
	_ = w.WriteMsg(m)
}

// startDNS serves z over UDP on loopback until the test ends.
func startDNS(t *testing.T, z *testZone) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	srv := &dns.Server{PacketConn: pc, Handler: z, NotifyStartedFunc: func() { close(started) }}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return pc.LocalAddr().String()
}

// TestCAA looks CAA records up on a name server the test runs: a name
// with a record, a name under it (the parent's record applies), a name
// with none anywhere up the tree (caa-missing, whose fix, added to the
// zone, makes it go), and the names audit cannot measure, each with why.
func TestCAA(t *testing.T) {
	z := &testZone{records: map[string][]dns.RR{}, servfail: map[string]bool{"broken.httpslab.net.": true}}
	z.add(t, `caa.httpslab.net. 300 IN CAA 0 issue "letsencrypt.org"`)
	z.add(t, `www.caa.httpslab.net. 300 IN A 198.18.0.10`)
	z.add(t, `none.httpslab.net. 300 IN A 198.18.0.11`)
	z.add(t, `broken.httpslab.net. 300 IN A 198.18.0.12`)
	resolver := startDNS(t, z)
	ctx := context.Background()

	for _, tt := range []struct{ host, name, asked string }{
		{"caa.httpslab.net", "caa.httpslab.net", "caa.httpslab.net"},
		{"WWW.caa.httpslab.net.", "caa.httpslab.net", "www.caa.httpslab.net caa.httpslab.net"},
	} {
		got, err := checkCAA(ctx, tt.host, resolver)
		if err != nil || got.Name != tt.name || strings.Join(got.Asked, " ") != tt.asked || len(got.Records) != 1 ||
			got.Records[0] != `0 issue "letsencrypt.org"` {
			t.Errorf("checkCAA(%q) = %+v, %v; want the record of %s, asking %s", tt.host, got, err, tt.name, tt.asked)
		}
		if fs := ruleCAAMissing(&Report{CAA: got}); len(fs) != 0 {
			t.Errorf("%s: %v; want no finding", tt.host, fs)
		}
	}

	got, err := checkCAA(ctx, "none.httpslab.net", resolver)
	if err != nil || got.Name != "" || strings.Join(got.Asked, " ") != "none.httpslab.net httpslab.net net" {
		t.Fatalf("checkCAA(none.httpslab.net) = %+v, %v; want no record, asking the name and each parent", got, err)
	}
	rep := &Report{CAA: got, Chain: Chain{leaf: &x509.Certificate{}}}
	rep.Chain.leaf.Issuer.Organization = []string{"Let's Encrypt"}
	fs := ruleCAAMissing(rep)
	if len(fs) != 1 || fs[0].ID != "caa-missing" || fs[0].Severity != Low || fs[0].Cost.Note == "" {
		t.Fatalf("findings %+v; want caa-missing, low, with its cost", fs)
	}
	if want := `none.httpslab.net. 3600 IN CAA 0 issue "letsencrypt.org"`; !strings.Contains(fs[0].Fix, want) {
		t.Errorf("fix %q; want %q, naming the chain's CA", fs[0].Fix, want)
	}
	// The fix, added to the zone as its comment says, makes the finding go.
	for _, line := range strings.Split(fs[0].Fix, "\n") {
		if !strings.HasPrefix(line, "#") {
			z.add(t, line)
		}
	}
	if got, err = checkCAA(ctx, "none.httpslab.net", resolver); err != nil || ruleCAAMissing(&Report{CAA: got}) != nil {
		t.Errorf("after the fix: %+v, %v; want the record found and no finding", got, err)
	}

	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	for _, tt := range []struct {
		ctx            context.Context
		host, resolver string
		want           string
	}{
		{ctx, "127.0.0.1", resolver, "IP address"},
		{ctx, "::1", resolver, "IP address"},
		{ctx, "localhost", resolver, "special-use name"},
		{ctx, "www.httpslab.test", resolver, "special-use name"},
		{ctx, "missing.httpslab.net", resolver, "NXDOMAIN"},
		{ctx, "broken.httpslab.net", resolver, "SERVFAIL"},
		{short, "none.httpslab.net", silent.LocalAddr().String(), "asking " + silent.LocalAddr().String()},
	} {
		start := time.Now()
		got, err := checkCAA(tt.ctx, tt.host, tt.resolver)
		if err == nil || !strings.Contains(err.Error(), tt.want) || got != nil {
			t.Errorf("checkCAA(%q) = %+v, %v; want not measured, saying %q", tt.host, got, err, tt.want)
		}
		if d := time.Since(start); d > caaTimeout+time.Second {
			t.Errorf("checkCAA(%q) took %v; want it bounded", tt.host, d)
		}
	}
}

// TestAuditCAAOfIPAddress: an audit of an IP address says why it did not
// look CAA up, and makes no caa-missing finding.
func TestAuditCAAOfIPAddress(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	rep, err := Run(context.Background(), Config{Host: "127.0.0.1", Port: port, Trust: transport.Trust{RootCAs: pool}, Attempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.CAA == nil || !strings.Contains(rep.CAA.NotMeasured, "127.0.0.1 is an IP address") || findingByID(rep.Findings, "caa-missing") != nil {
		t.Errorf("CAA %+v, findings %v; want not measured for an IP address, and no caa-missing", rep.CAA, ids(rep))
	}
}
