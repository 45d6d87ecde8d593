package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/httpslab/httpslab/internal/lab"
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
		got, err := checkCAA(ctx, tt.host, nil, resolver)
		if err != nil || got.Name != tt.name || strings.Join(got.Asked, " ") != tt.asked || len(got.Records) != 1 ||
			got.Records[0] != `0 issue "letsencrypt.org"` {
			t.Errorf("checkCAA(%q) = %+v, %v; want the record of %s, asking %s", tt.host, got, err, tt.name, tt.asked)
		}
		if fs := ruleCAAMissing(&Report{CAA: got}); len(fs) != 0 {
			t.Errorf("%s: %v; want no finding", tt.host, fs)
		}
	}

	got, err := checkCAA(ctx, "none.httpslab.net", nil, resolver)
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
	if got, err = checkCAA(ctx, "none.httpslab.net", nil, resolver); err != nil || ruleCAAMissing(&Report{CAA: got}) != nil {
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
		{ctx, "www.example.com", resolver, "special-use name"},
		{ctx, "www.httpslab.test", resolver, "special-use name"},
		{ctx, "missing.httpslab.net", resolver, "NXDOMAIN"},
		{ctx, "broken.httpslab.net", resolver, "SERVFAIL"},
		{short, "none.httpslab.net", silent.LocalAddr().String(), "asking " + silent.LocalAddr().String()},
	} {
		start := time.Now()
		got, err := checkCAA(tt.ctx, tt.host, nil, tt.resolver)
		if err == nil || !strings.Contains(err.Error(), tt.want) || got != nil {
			t.Errorf("checkCAA(%q) = %+v, %v; want not measured, saying %q", tt.host, got, err, tt.want)
		}
		if d := time.Since(start); d > caaTimeout+time.Second {
			t.Errorf("checkCAA(%q) took %v; want it bounded", tt.host, d)
		}
	}
}

// caaZone is a test zone with a name that has a CAA record
// (caa.httpslab.net, and www below it) and one with none up its tree
// (none.httpslab.net).
func caaZone(t *testing.T) *testZone {
	z := &testZone{records: map[string][]dns.RR{}, servfail: map[string]bool{}}
	z.add(t, `caa.httpslab.net. 300 IN CAA 0 issue "letsencrypt.org"`)
	z.add(t, `www.caa.httpslab.net. 300 IN A 198.18.0.10`)
	z.add(t, `none.httpslab.net. 300 IN A 198.18.0.11`)
	return z
}

// TestCAAOfCertificate: for a target given as an IP address, the names
// looked up are the DNS names of its certificate, special-use ones
// skipped (a wildcard at the name below it), and the result is the first
// name without a record set, else the first name's; a certificate with
// no name to look up is not measured, saying why.
func TestCAAOfCertificate(t *testing.T) {
	z := caaZone(t)
	resolver := startDNS(t, z)
	for _, tt := range []struct {
		names   []string
		name    string // the name with the record set; "" for none
		asked   string
		skipped []string
	}{
		{[]string{"caa.httpslab.net"}, "caa.httpslab.net", "caa.httpslab.net", nil},
		{[]string{"*.caa.httpslab.net", "localhost"}, "caa.httpslab.net", "caa.httpslab.net", []string{"localhost"}},
		{[]string{"www.caa.httpslab.net", "none.httpslab.net"}, "", "none.httpslab.net httpslab.net net", nil},
		{[]string{"localhost", "none.httpslab.net", "caa.httpslab.net"}, "", "none.httpslab.net httpslab.net net", []string{"localhost"}},
	} {
		leaf := &x509.Certificate{DNSNames: tt.names}
		got, err := checkCAA(context.Background(), "127.0.0.1", leaf, resolver)
		if err != nil || got.Name != tt.name || strings.Join(got.Asked, " ") != tt.asked || !got.OfCertificate ||
			!slices.Equal(got.Skipped, tt.skipped) {
			t.Errorf("checkCAA(127.0.0.1, a certificate for %v) = %+v, %v; want the record set at %q, asking %s, skipping %v",
				tt.names, got, err, tt.name, tt.asked, tt.skipped)
		}
	}
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, "127.0.0.1 is an IP address, and its certificate names no DNS name"},
		{[]string{"localhost", "www.httpslab.test", "x.invalid"}, "its certificate's DNS names (localhost, www.httpslab.test, x.invalid) are special-use names"},
		{[]string{"missing.httpslab.net"}, "for its certificate's name missing.httpslab.net: the resolver " + resolver + " does not know"},
	} {
		got, err := checkCAA(context.Background(), "127.0.0.1", &x509.Certificate{DNSNames: tt.names}, resolver)
		if err == nil || !strings.Contains(err.Error(), tt.want) || got != nil {
			t.Errorf("checkCAA(127.0.0.1, a certificate for %v) = %+v, %v; want not measured, saying %q", tt.names, got, err, tt.want)
		}
	}
}

// TestAuditCAAOfIPAddress audits servers on 127.0.0.1 whose certificates
// name DNS names too: the CAA records looked up are those names', the
// finding names the name without one, and a certificate for special-use
// names only (httptest's, for example.com) is not measured, saying why.
func TestAuditCAAOfIPAddress(t *testing.T) {
	t.Parallel()
	resolver := startDNS(t, caaZone(t))
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	audit := func(t *testing.T, srv *httptest.Server, pool *x509.CertPool) *Report {
		t.Helper()
		u, _ := url.Parse(srv.URL)
		port, _ := strconv.Atoi(u.Port())
		rep, err := Run(context.Background(), Config{Host: "127.0.0.1", Port: port, Trust: transport.Trust{RootCAs: pool},
			Attempts: 2, Resolver: resolver})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	for _, tt := range []struct {
		hosts []string
		name  string // the name with the record set
		title string // of caa-missing; "" for none
	}{
		{[]string{"127.0.0.1", "localhost", "caa.httpslab.net"}, "caa.httpslab.net", ""},
		{[]string{"127.0.0.1", "caa.httpslab.net", "none.httpslab.net"}, "",
			"no DNS CAA record: any CA may issue certificates for none.httpslab.net, a name in the certificate of 127.0.0.1:"},
	} {
		leaf, err := ca.Issue(lab.ECDSAP256, tt.hosts...)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf.TLS}}
		srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		srv.StartTLS()
		defer srv.Close()
		rep := audit(t, srv, ca.Pool())
		f := findingByID(rep.Findings, "caa-missing")
		switch {
		case rep.CAA == nil || !rep.CAA.OfCertificate || rep.CAA.Name != tt.name:
			t.Errorf("certificate for %v: CAA %+v; want the record set at %q, of the certificate's names", tt.hosts, rep.CAA, tt.name)
		case tt.title == "" && f != nil:
			t.Errorf("certificate for %v: %+v; want no caa-missing", tt.hosts, f)
		case tt.title != "" && (f == nil || !strings.HasPrefix(f.Title, tt.title) || !strings.Contains(f.Evidence, "the target is an IP address")):
			t.Errorf("certificate for %v: caa-missing %+v; want %q, saying the target is an IP address", tt.hosts, f, tt.title)
		}
	}

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	rep := audit(t, srv, pool)
	if rep.CAA == nil || !strings.Contains(rep.CAA.NotMeasured, "127.0.0.1 is an IP address, and its certificate's DNS names (example.com) are special-use names") ||
		findingByID(rep.Findings, "caa-missing") != nil {
		t.Errorf("CAA %+v, findings %v; want not measured for example.com, and no caa-missing", rep.CAA, ids(rep))
	}
}
