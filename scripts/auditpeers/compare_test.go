package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

func TestVersionName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ssl2", "SSLv2"}, {"ssl3", "SSLv3"}, {"SSLv3", "SSLv3"}, {"sslv3", "SSLv3"},
		{"tls1", "TLS 1.0"}, {"tls1.0", "TLS 1.0"}, {"TLSv1.1", "TLS 1.1"}, {"tls1.2", "TLS 1.2"}, {"TLSv1.3", "TLS 1.3"},
	}
	for _, tt := range tests {
		if got := versionName(tt.in); got != tt.want {
			t.Errorf("versionName(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestDifferences(t *testing.T) {
	audit := inventory{Versions: []string{"TLS 1.2", "TLS 1.3"},
		Suites: map[string][]uint16{"TLS 1.2": {0xC02B}, "TLS 1.3": {0x1301}}, Groups: []uint16{23, 29}}
	tests := []struct {
		name string
		peer inventory
		want []string
	}{
		{"same", audit, nil},
		{"peer lists an extra version's suites", inventory{Versions: audit.Versions, Groups: audit.Groups,
			Suites: map[string][]uint16{"TLS 1.2": {0xC02B}, "TLS 1.3": {0x1301}, "TLS 1.1": {0xC009}}}, []string{"TLS 1.1 suites"}},
		{"peer found no groups", inventory{Versions: audit.Versions, Suites: audit.Suites}, []string{"groups"}},
	}
	for _, tt := range tests {
		got := differences(audit, tt.peer, "peer")
		if len(got) != len(tt.want) {
			t.Errorf("%s: differences = %q; want %d starting %q", tt.name, got, len(tt.want), tt.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tt.want[i]) {
				t.Errorf("%s: difference %q; want one starting %q", tt.name, got[i], tt.want[i])
			}
		}
	}
}

func TestFromSSLScanRejectsBadIDs(t *testing.T) {
	tests := []struct{ name, xml, want string }{
		{"cipher", `<document><ssltest><cipher sslversion="TLSv1.2" id="0xZZ"/></ssltest></document>`, `cipher id "0xZZ"`},
		{"group", `<document><ssltest><group id="x25519"/></ssltest></document>`, `group id "x25519"`},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "sslscan.xml")
		if err := os.WriteFile(path, []byte(tt.xml), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := fromSSLScan(path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: fromSSLScan = %v; want an error naming %s", tt.name, err, tt.want)
		}
	}
}

// TestFacts reads testssl's answers as its JSON gives them and compares
// them with audit's: a real difference counts, testssl's TLS 1.3 "session
// ID" resumption on a server without a session cache is explained.
func TestFacts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testssl.json")
	testssl := `[{"id":"sessionresumption_ticket","finding":"supported"},{"id":"sessionresumption_ID","finding":"supported"},
{"id":"OCSP_stapling","finding":"not offered"},{"id":"HSTS_time","finding":"max-age too short. 0 days (=600 seconds) < 15552000 seconds"},
{"id":"cert_keySize","finding":"EC 256 bits"},{"id":"cert_chain_of_trust","finding":"failed (chain incomplete)."}]`
	if err := os.WriteFile(path, []byte(testssl), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := fromTestsslFacts(path)
	if err != nil {
		t.Fatal(err)
	}
	yes, no, age := true, false, int64(600)
	if *b.SessionID != yes || *b.Ticket != yes || *b.Stapled != no || *b.HSTSMaxAge != 600 || b.Key != "EC 256" || !*b.ChainIncomplete {
		t.Fatalf("fromTestsslFacts = %+v; want ID and ticket yes, no staple, 600 s, EC 256, chain incomplete", b)
	}
	audit := facts{SessionID: &yes, Ticket: &yes, Stapled: &no, HSTSMaxAge: &age, Key: keyName("ECDSA P-256"), ChainIncomplete: &yes}
	tests := []struct {
		name             string
		change           func(*facts)
		diffs, explained int
	}{
		{"same", func(*facts) {}, 0, 0},
		{"no session cache, TLS 1.3 resumes", func(f *facts) { f.SessionID, f.TLS13PSK = &no, true }, 0, 1},
		{"no session cache, no TLS 1.3", func(f *facts) { f.SessionID = &no }, 1, 0},
		{"stapled", func(f *facts) { f.Stapled = &yes }, 1, 0},
		{"RSA", func(f *facts) { f.Key = keyName("RSA 2048") }, 1, 0},
		{"chain complete", func(f *facts) { f.ChainIncomplete = &no }, 1, 0},
		{"not answered", func(f *facts) { f.Ticket, f.HSTSMaxAge = nil, nil }, 0, 0},
	}
	for _, tt := range tests {
		a := audit
		tt.change(&a)
		diffs, explained := factDifferences(a, b)
		if len(diffs) != tt.diffs || len(explained) != tt.explained {
			t.Errorf("%s: differences %q, explained %q; want %d and %d", tt.name, diffs, explained, tt.diffs, tt.explained)
		}
	}
}

func TestVerdicts(t *testing.T) {
	audit := []auditFinding{{ID: "chain-incomplete"}, {ID: "cbc-suites", Attacks: []string{"LUCKY13"}}}
	testssl := []testsslItem{
		{"cert_chain_of_trust", "CRITICAL", "failed (chain incomplete)."},
		{"LUCKY13", "LOW", "potentially vulnerable"},
		{"BREACH", "MEDIUM", "potentially VULNERABLE"},
		{"HPKP", "LOW", "--"},
		{"TLS1_2", "OK", "offered"},
	}
	vs := verdicts(audit, testssl)
	if len(vs) != 4 {
		t.Fatalf("verdicts = %+v; want the 4 of severity LOW and above", vs)
	}
	var b strings.Builder
	if missing := printVerdicts(&b, vs); missing != 2 || !strings.Contains(b.String(), "NOT FOUND") ||
		!strings.Contains(b.String(), "(no such audit check)") {
		t.Errorf("printVerdicts: %d missing; want 2 (BREACH, and HPKP unmapped)\n%s", missing, b.String())
	}
	if ids, _ := mapped("TLS1_1"); !slices.Equal(ids, []string{"tls1.1-enabled"}) {
		t.Errorf("mapped(TLS1_1) = %v; want the longest prefix's", ids)
	}
}

// TestCompareConfirmsGroups: groups audit found and a peer did not are a
// difference unless openssl s_client (here a stand-in) confirms each.
func TestCompareConfirmsGroups(t *testing.T) {
	audit := inventory{Versions: []string{"TLS 1.2"}, Suites: map[string][]uint16{"TLS 1.2": {0xC02B}}, Groups: []uint16{23, 29}}
	peer := inventory{Versions: audit.Versions, Suites: audit.Suites, Groups: []uint16{23}}
	for _, tt := range []struct {
		confirmed bool
		diffs     int
	}{{true, 0}, {false, 1}} {
		var asked []uint16
		confirm := func(ids []uint16) (string, bool) { asked = ids; return "`openssl s_client ...`", tt.confirmed }
		var b strings.Builder
		if n := compare(&b, audit, map[string]inventory{"sslscan": peer}, confirm); n != tt.diffs || !slices.Equal(asked, []uint16{29}) {
			t.Errorf("confirmed %v: %d differences, asked about %v; want %d, asked about [29]\n%s", tt.confirmed, n, asked, tt.diffs, b.String())
		}
	}
}

func TestVerdictCell(t *testing.T) {
	tests := []struct {
		v    verdict
		want string
		miss bool
	}{
		{verdict{Audit: []string{"caa-missing"}, Known: true}, "caa-missing", false},
		{verdict{Known: true, NotMeasured: "127.0.0.1 is an IP address"}, "not measured: 127.0.0.1 is an IP address", false},
		{verdict{Known: true, Refuted: "`openssl s_client` prints x"}, "testssl is wrong: `openssl s_client` prints x", false},
		{verdict{Known: true}, "NOT FOUND", true},
		{verdict{}, "(no such audit check)", true},
		{verdict{Severity: "OK", Known: true}, "none", false},
		{verdict{Severity: "OK", Known: true, Seen: `0 issue "ca.httpslab-lab.net" at caa.httpslab-lab.net`},
			`none (0 issue "ca.httpslab-lab.net" at caa.httpslab-lab.net)`, false},
		{verdict{Severity: "OK", Known: true, NotMeasured: "no resolver"}, "not measured: no resolver", true},
		{verdict{Severity: "OK", Audit: []string{"caa-missing"}, Known: true}, "caa-missing, where testssl finds nothing", true},
	}
	for _, tt := range tests {
		if got, miss := tt.v.cell(); got != tt.want || miss != tt.miss {
			t.Errorf("%+v.cell() = %q, %v; want %q, %v", tt.v, got, miss, tt.want, tt.miss)
		}
	}
}

// TestVerdictsShowCAAWhenOK: testssl's OK rows are left out, except the
// CAA one, so that audit's caa-missing is checked where testssl finds a
// record.
func TestVerdictsShowCAAWhenOK(t *testing.T) {
	items := []testsslItem{{"DNS_CAArecord", "OK", `0 issue "ca.httpslab-lab.net"`}, {"HSTS", "OK", "730 days"}, {"TLS1", "LOW", "offered"}}
	vs := verdicts([]auditFinding{{ID: "caa-missing"}}, items)
	if len(vs) != 2 || vs[0].ID != "DNS_CAArecord" || vs[1].ID != "TLS1" {
		t.Fatalf("verdicts = %+v; want the DNS_CAArecord and TLS1 rows", vs)
	}
	if _, miss := vs[0].cell(); !miss {
		t.Errorf("caa-missing where testssl finds a CAA record is not counted as a difference")
	}
}

func TestZoneAnswer(t *testing.T) {
	q := func(name string, qtype uint16) dns.Question {
		return dns.Question{Name: name, Qtype: qtype, Qclass: dns.ClassINET}
	}
	tests := []struct {
		q       dns.Question
		rcode   int
		answers int
	}{
		{q(caaName, dns.TypeCAA), dns.RcodeSuccess, 1},
		{q("CAA.httpslab-lab.net.", dns.TypeCAA), dns.RcodeSuccess, 1},
		{q(caaName, dns.TypeA), dns.RcodeSuccess, 1},
		{q(caaName, dns.TypeAAAA), dns.RcodeSuccess, 0},
		{q(noCAAName, dns.TypeCAA), dns.RcodeSuccess, 0},
		{q(noCAAName, dns.TypeA), dns.RcodeSuccess, 1},
		{q(labZone, dns.TypeCAA), dns.RcodeSuccess, 0},
		{q("net.", dns.TypeCAA), dns.RcodeSuccess, 0},
		{q(".", dns.TypeCAA), dns.RcodeSuccess, 0},
		{q("other.httpslab-lab.net.", dns.TypeA), dns.RcodeNameError, 0},
	}
	for _, tt := range tests {
		rcode, answer := zoneAnswer(tt.q)
		if rcode != tt.rcode || len(answer) != tt.answers {
			t.Errorf("%s %s: %s with %d answers; want %s with %d", tt.q.Name, dns.TypeToString[tt.q.Qtype],
				dns.RcodeToString[rcode], len(answer), dns.RcodeToString[tt.rcode], tt.answers)
		}
	}
	if _, answer := zoneAnswer(q(caaName, dns.TypeCAA)); answer[0].(*dns.CAA).Value != caaValue {
		t.Errorf("CAA record %v; want issue %q", answer[0], caaValue)
	}
}
