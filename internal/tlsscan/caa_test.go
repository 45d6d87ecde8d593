package tlsscan

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
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

	"github.com/google/go-cmp/cmp"
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
// (caa.httpslab.net, and www below it), one with none up its tree
// (none.httpslab.net, bare.httpslab.net), one whose records allow two CAs, and one other
// for wildcards (wild.httpslab.net), and a name the resolver answers with
// SERVFAIL (broken.httpslab.net).
func caaZone(t *testing.T) *testZone {
	z := &testZone{records: map[string][]dns.RR{}, servfail: map[string]bool{"broken.httpslab.net.": true}}
	z.add(t, `caa.httpslab.net. 300 IN CAA 0 issue "letsencrypt.org"`)
	z.add(t, `www.caa.httpslab.net. 300 IN A 198.18.0.10`)
	z.add(t, `none.httpslab.net. 300 IN A 198.18.0.11`)
	z.add(t, `broken.httpslab.net. 300 IN A 198.18.0.12`)
	z.add(t, `bare.httpslab.net. 300 IN A 198.18.0.13`)
	z.add(t, `wild.httpslab.net. 300 IN CAA 0 issue "letsencrypt.org"`)
	z.add(t, `wild.httpslab.net. 300 IN CAA 0 issue "pki.goog; validationmethods=dns-01"`)
	z.add(t, `wild.httpslab.net. 300 IN CAA 0 issuewild ";"`)
	return z
}

// Results of the zone's names as CAAName holds them.
var (
	caaHasRecord = CAAName{Name: "caa.httpslab.net", At: "caa.httpslab.net", Records: []string{`0 issue "letsencrypt.org"`},
		Issuers: []string{"letsencrypt.org"}, Asked: []string{"caa.httpslab.net"}}
	caaHasNone = CAAName{Name: "none.httpslab.net", Asked: []string{"none.httpslab.net", "httpslab.net", "net"}}
)

// TestCAAOfCertificate: for a target given as an IP address, the names
// looked up are the DNS names of its certificate, special-use ones
// skipped (a wildcard at the name below it), and the result is the first
// name without a record set, else the first name's; a certificate with
// no name to look up is not measured, saying why.
func TestCAAOfCertificate(t *testing.T) {
	z := caaZone(t)
	resolver := startDNS(t, z)
	wildcard := CAAName{Name: "caa.httpslab.net", Wildcard: true, At: "caa.httpslab.net", Records: caaHasRecord.Records,
		Issuers: []string{"letsencrypt.org"}, Asked: []string{"caa.httpslab.net"}}
	www := CAAName{Name: "www.caa.httpslab.net", At: "caa.httpslab.net", Records: caaHasRecord.Records,
		Issuers: []string{"letsencrypt.org"}, Asked: []string{"www.caa.httpslab.net", "caa.httpslab.net"}}
	wild := []string{`0 issue "letsencrypt.org"`, `0 issue "pki.goog; validationmethods=dns-01"`, `0 issuewild ";"`}
	for _, tt := range []struct {
		names   []string
		name    string // the name with the record set; "" for none
		asked   string
		skipped []string
		results []CAAName // one per name looked up
	}{
		{[]string{"caa.httpslab.net"}, "caa.httpslab.net", "caa.httpslab.net", nil, []CAAName{caaHasRecord}},
		{[]string{"*.caa.httpslab.net", "localhost"}, "caa.httpslab.net", "caa.httpslab.net", []string{"localhost"}, []CAAName{wildcard}},
		{[]string{"www.caa.httpslab.net", "none.httpslab.net"}, "", "none.httpslab.net httpslab.net net", nil, []CAAName{www, caaHasNone}},
		{[]string{"localhost", "none.httpslab.net", "caa.httpslab.net"}, "", "none.httpslab.net httpslab.net net", []string{"localhost"},
			[]CAAName{caaHasNone, caaHasRecord}},
		// A name the resolver does not know, and one it fails on, are
		// results of their own beside the others'.
		{[]string{"missing.httpslab.net", "caa.httpslab.net", "broken.httpslab.net"}, "caa.httpslab.net", "caa.httpslab.net", nil,
			[]CAAName{{Name: "missing.httpslab.net", NXDomain: true}, caaHasRecord,
				{Name: "broken.httpslab.net", Error: "the resolver " + resolver + " answered SERVFAIL for the CAA records of broken.httpslab.net"}}},
		// Two CAs for the name; none for its wildcard (issuewild ";").
		{[]string{"wild.httpslab.net", "*.wild.httpslab.net"}, "wild.httpslab.net", "wild.httpslab.net", nil, []CAAName{
			{Name: "wild.httpslab.net", At: "wild.httpslab.net", Records: wild, Issuers: []string{"letsencrypt.org", "pki.goog"}, Asked: []string{"wild.httpslab.net"}},
			{Name: "wild.httpslab.net", Wildcard: true, At: "wild.httpslab.net", Records: wild, Asked: []string{"wild.httpslab.net"}}}},
	} {
		leaf := &x509.Certificate{DNSNames: tt.names}
		got, err := checkCAA(context.Background(), "127.0.0.1", leaf, resolver)
		if err != nil || got.Name != tt.name || strings.Join(got.Asked, " ") != tt.asked || !got.OfCertificate ||
			!slices.Equal(got.Skipped, tt.skipped) {
			t.Errorf("checkCAA(127.0.0.1, a certificate for %v) = %+v, %v; want the record set at %q, asking %s, skipping %v",
				tt.names, got, err, tt.name, tt.asked, tt.skipped)
			continue
		}
		if diff := cmp.Diff(tt.results, got.Names); diff != "" {
			t.Errorf("checkCAA(127.0.0.1, a certificate for %v): names (-want +got):\n%s", tt.names, diff)
		}
	}
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, "127.0.0.1 is an IP address, and its certificate names no DNS name"},
		{[]string{"localhost", "www.httpslab.test", "x.invalid"}, "its certificate's DNS names (localhost, www.httpslab.test, x.invalid) are special-use names"},
		{[]string{"missing.httpslab.net"}, "for its certificate's name missing.httpslab.net: the resolver " + resolver + " does not know"},
		{[]string{"missing.httpslab.net", "broken.httpslab.net"}, "for its certificate's name missing.httpslab.net: the resolver " + resolver +
			" does not know missing.httpslab.net (NXDOMAIN): the name is not in the DNS it serves; for its certificate's name broken.httpslab.net: " +
			"the resolver " + resolver + " answered SERVFAIL"},
	} {
		got, err := checkCAA(context.Background(), "127.0.0.1", &x509.Certificate{DNSNames: tt.names}, resolver)
		if err == nil || !strings.Contains(err.Error(), tt.want) || got != nil {
			t.Errorf("checkCAA(127.0.0.1, a certificate for %v) = %+v, %v; want not measured, saying %q", tt.names, got, err, tt.want)
		}
	}

	// A resolver that never answers holds the names, looked up in
	// parallel, for one timeout, not one per name.
	silent, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	start := time.Now()
	three := &x509.Certificate{DNSNames: []string{"a.httpslab.net", "b.httpslab.net", "c.httpslab.net"}}
	got, err := checkCAA(context.Background(), "127.0.0.1", three, silent.LocalAddr().String())
	if err == nil || got != nil || strings.Count(err.Error(), "for its certificate's name") != 3 {
		t.Errorf("checkCAA(127.0.0.1, three names, a silent resolver) = %+v, %v; want not measured, saying why for each name", got, err)
	}
	if d := time.Since(start); d > caaTimeout+time.Second {
		t.Errorf("checkCAA(127.0.0.1, three names, a silent resolver) took %v; want about one timeout (%v)", d, caaTimeout)
	}
}

// TestCAAMissingNames: for an IP address whose certificate names two DNS
// names without a record set and one with, caa-missing names both and
// gives each name's result; its fix, added to the zone, makes it go.
func TestCAAMissingNames(t *testing.T) {
	z := caaZone(t)
	resolver := startDNS(t, z)
	leaf := &x509.Certificate{DNSNames: []string{"none.httpslab.net", "caa.httpslab.net", "bare.httpslab.net"}}
	got, err := checkCAA(context.Background(), "127.0.0.1", leaf, resolver)
	if err != nil {
		t.Fatal(err)
	}
	fs := ruleCAAMissing(&Report{Address: "127.0.0.1:443", CAA: got})
	title := "no DNS CAA record: any CA may issue certificates for none.httpslab.net, bare.httpslab.net, names in the certificate of 127.0.0.1:443"
	if len(fs) != 1 || fs[0].Title != title {
		t.Fatalf("findings %+v; want caa-missing titled %q", fs, title)
	}
	for _, want := range []string{"none.httpslab.net: no CAA record at none.httpslab.net, httpslab.net, net",
		`caa.httpslab.net: 0 issue "letsencrypt.org" at caa.httpslab.net: allows letsencrypt.org`,
		"bare.httpslab.net: no CAA record at bare.httpslab.net, httpslab.net, net", "asked " + resolver} {
		if !strings.Contains(fs[0].Evidence, want) {
			t.Errorf("evidence %q lacks %q", fs[0].Evidence, want)
		}
	}
	for _, line := range strings.Split(fs[0].Fix, "\n") {
		if !strings.HasPrefix(line, "#") {
			z.add(t, line)
		}
	}
	if got, err = checkCAA(context.Background(), "127.0.0.1", leaf, resolver); err != nil || ruleCAAMissing(&Report{CAA: got}) != nil {
		t.Errorf("after the fix: %+v, %v; want every name's record found and no finding", got, err)
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
		names []CAAName
	}{
		{[]string{"127.0.0.1", "localhost", "caa.httpslab.net"}, "caa.httpslab.net", "", []CAAName{caaHasRecord}},
		{[]string{"127.0.0.1", "caa.httpslab.net", "none.httpslab.net"}, "",
			"no DNS CAA record: any CA may issue certificates for none.httpslab.net, a name in the certificate of 127.0.0.1:",
			[]CAAName{caaHasRecord, caaHasNone}},
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
		case f != nil && (!strings.Contains(f.Evidence, "none.httpslab.net: no CAA record at") ||
			!strings.Contains(f.Evidence, `caa.httpslab.net: 0 issue "letsencrypt.org" at caa.httpslab.net: allows letsencrypt.org`)):
			t.Errorf("certificate for %v: caa-missing evidence %q; want each name's result", tt.hosts, f.Evidence)
		}
		// Each name's result, in the certificate's order, and in the
		// report's JSON as audit --json writes it.
		var decoded struct {
			CAA struct {
				Names []CAAName `json:"names"`
			} `json:"caa"`
		}
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.names, decoded.CAA.Names); diff != "" {
			t.Errorf("certificate for %v: caa.names in the JSON (-want +got):\n%s", tt.hosts, diff)
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
