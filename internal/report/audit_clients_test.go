package report

import (
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestAuditClientsTable: the text report has one line per simulated
// client, what it gets or why it fails, and marks the current ones.
func TestAuditClientsTable(t *testing.T) {
	r := &tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, Clients: []tlsscan.ClientResult{
		{Client: "Chrome 131+", Current: true, OK: true, Version: "TLS 1.3", Suite: "TLS_AES_128_GCM_SHA256", Group: "X25519MLKEM768", Key: "ECDSA P-256"},
		{Client: "IE 11 on Windows 7", Failure: "no common protocol version (the client offers TLS 1.2, TLS 1.1, TLS 1.0)"},
	}}
	var b strings.Builder
	if err := Audit(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Clients (simulated from the enumeration: 1 of 2 connect)",
		"Chrome 131+ *", "TLS 1.3 TLS_AES_128_GCM_SHA256", "X25519MLKEM768", "ECDSA P-256",
		"IE 11 on Windows 7    FAILS: no common protocol version"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit text lacks %q:\n%s", want, out)
		}
	}
}

// TestAuditClientsHTML: the HTML report's audit section has a row per
// simulated client.
func TestAuditClientsHTML(t *testing.T) {
	r := &tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, Clients: []tlsscan.ClientResult{
		{Client: "Chrome 131+", Current: true, OK: true, Version: "TLS 1.3", Suite: "TLS_AES_128_GCM_SHA256", Group: "x25519"},
		{Client: "IE 11 on Windows 7", Failure: "no common protocol version"},
	}}
	s := auditSection(r)
	if len(s.Tables) != 1 || len(s.Tables[0].Rows) != 2 || s.Tables[0].Rows[1][7] != "no common protocol version" ||
		s.Tables[0].Rows[0][4] != "TLS_AES_128_GCM_SHA256" {
		t.Fatalf("audit section tables = %+v; want one row per client", s.Tables)
	}
}

// TestAuditClientsGroupOrderNote: when the server imposes its TLS 1.2
// suite order and a client gets ECDHE there, the table says its group is
// the client's choice as simulated, not measured.
func TestAuditClientsGroupOrderNote(t *testing.T) {
	r := &tlsscan.Report{Enumeration: &tlsscan.Enumeration{Versions: []tlsscan.VersionResult{
		{Version: 0x0303, Name: "TLS 1.2", Supported: true, ServerOrder: true}}},
		Clients: []tlsscan.ClientResult{{Client: "Java 8 (8u291+)", OK: true, Version: "TLS 1.2",
			Suite: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", Group: "secp256r1"}}}
	var b strings.Builder
	if err := Audit(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "may impose its group order too") {
		t.Errorf("no note on the server's group order:\n%s", b.String())
	}
	r.Enumeration.Versions[0].ServerOrder = false
	b.Reset()
	if err := Audit(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "group order") {
		t.Errorf("a note on the group order for a server that follows the client:\n%s", b.String())
	}
}
