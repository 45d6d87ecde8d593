package report

import (
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestAuditCAALine: the DNS CAA line gives the records and their name,
// none with the names asked, or why not measured; for an IP address,
// which name of its certificate was looked up.
func TestAuditCAALine(t *testing.T) {
	for _, tt := range []struct {
		caa  tlsscan.CAA
		want string
	}{
		{tlsscan.CAA{Name: "caa.example.net", Records: []string{`0 issue "letsencrypt.org"`}, Asked: []string{"www.caa.example.net", "caa.example.net"}},
			`DNS CAA       0 issue "letsencrypt.org" at caa.example.net` + "\n"},
		{tlsscan.CAA{Asked: []string{"none.example.net", "example.net", "net"}},
			"DNS CAA       none at none.example.net, example.net, net\n"},
		{tlsscan.CAA{Asked: []string{"none.example.net", "example.net", "net"}, OfCertificate: true},
			"DNS CAA       none at none.example.net, example.net, net (for none.example.net, a name of the certificate: the target is an IP address)\n"},
		{tlsscan.CAA{Name: "caa.example.net", Records: []string{`0 issue "pki.goog"`}, Asked: []string{"caa.example.net"}, OfCertificate: true},
			`DNS CAA       0 issue "pki.goog" at caa.example.net (for caa.example.net, a name of the certificate: the target is an IP address)` + "\n"},
		{tlsscan.CAA{NotMeasured: "127.0.0.1 is an IP address, and its certificate names no DNS name"},
			"DNS CAA       not measured: 127.0.0.1 is an IP address, and its certificate names no DNS name\n"},
	} {
		rep := tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, CAA: &tt.caa}
		var b strings.Builder
		if err := Audit(&b, &rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("report of %+v lacks %q:\n%s", tt.caa, tt.want, b.String())
		}
	}
}
