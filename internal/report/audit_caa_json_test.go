package report_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestAuditJSONCAANames: audit --json holds each name of the certificate
// looked up for an IP address, with its result, under caa.names, and the
// audit schema accepts it.
func TestAuditJSONCAANames(t *testing.T) {
	names := []tlsscan.CAAName{
		{Name: "caa.example.net", At: "caa.example.net", Records: []string{`0 issue "letsencrypt.org"`},
			Issuers: []string{"letsencrypt.org"}, Asked: []string{"caa.example.net"}},
		{Name: "none.example.net", Asked: []string{"none.example.net", "example.net", "net"}},
		{Name: "gone.example.net", NXDomain: true},
		{Name: "broken.example.net", Wildcard: true, Error: "the resolver answered SERVFAIL"},
	}
	rep := &tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, CAA: &tlsscan.CAA{Asked: names[1].Asked, OfCertificate: true, Names: names}}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, "audit", rep); err != nil {
		t.Fatal(err)
	}
	if err := validate(t, "audit", buf.Bytes()); err != nil {
		t.Fatalf("audit JSON with caa.names does not validate: %v\n%s", err, buf.Bytes())
	}
	var doc struct {
		Result struct {
			CAA struct {
				Names []tlsscan.CAAName `json:"names"`
			} `json:"caa"`
		} `json:"result"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(names, doc.Result.CAA.Names); diff != "" {
		t.Errorf("caa.names (-want +got):\n%s", diff)
	}
}
