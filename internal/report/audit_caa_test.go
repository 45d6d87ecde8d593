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
		// For an IP address, a line for each name of the certificate
		// looked up: its records and issuers, none, NXDOMAIN, the error.
		{tlsscan.CAA{Asked: []string{"none.example.net", "example.net", "net"}, OfCertificate: true, Names: caaNames},
			"DNS CAA       none for none.example.net; not known for gone.example.net, broken.example.net " +
				"(5 DNS names of the certificate looked up: the target is an IP address)\n" +
				`              caa.example.net: 0 issue "letsencrypt.org"; 0 issue "pki.goog" at caa.example.net: allows letsencrypt.org, pki.goog` + "\n" +
				"              none.example.net: no CAA record at none.example.net, example.net, net\n" +
				`              *.caa.example.net: 0 issuewild ";" at caa.example.net: no CA may issue` + "\n" +
				"              gone.example.net: NXDOMAIN: the resolver does not know the name\n" +
				"              broken.example.net: not measured: the resolver answered SERVFAIL\n"},
		{tlsscan.CAA{Name: "caa.example.net", Asked: []string{"caa.example.net"}, OfCertificate: true, Names: caaNames[:1]},
			"DNS CAA       a record set for every name (1 DNS name of the certificate looked up: the target is an IP address)\n" +
				`              caa.example.net: 0 issue "letsencrypt.org"; 0 issue "pki.goog" at caa.example.net: allows letsencrypt.org, pki.goog` + "\n"},
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

// caaNames are the results of a certificate's names: one with two
// issuers, one without a record set, a wildcard no CA may issue for, one
// NXDOMAIN and one SERVFAIL.
var caaNames = []tlsscan.CAAName{
	{Name: "caa.example.net", At: "caa.example.net", Records: []string{`0 issue "letsencrypt.org"`, `0 issue "pki.goog"`},
		Issuers: []string{"letsencrypt.org", "pki.goog"}, Asked: []string{"caa.example.net"}},
	{Name: "none.example.net", Asked: []string{"none.example.net", "example.net", "net"}},
	{Name: "caa.example.net", Wildcard: true, At: "caa.example.net", Records: []string{`0 issuewild ";"`}, Asked: []string{"caa.example.net"}},
	{Name: "gone.example.net", NXDomain: true},
	{Name: "broken.example.net", Error: "the resolver answered SERVFAIL"},
}
