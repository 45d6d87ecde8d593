package report

import (
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestAuditKnownAttacksLine: one line gives the checks by outcome, the
// vulnerable first; a report without checks has no such line.
func TestAuditKnownAttacksLine(t *testing.T) {
	rep := tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, Vulnerabilities: []tlsscan.VulnCheck{
		{ID: "heartbleed", Status: tlsscan.Vulnerable}, {ID: "ticketbleed", Status: tlsscan.NotApplicable},
		{ID: "robot", Status: tlsscan.NotVulnerable}, {ID: "client-renegotiation", Status: tlsscan.NotMeasured},
		{ID: "sslv2-drown", Status: tlsscan.NotVulnerable}}}
	var b strings.Builder
	if err := Audit(&b, &rep); err != nil {
		t.Fatal(err)
	}
	want := "Known attacks VULNERABLE: heartbleed; ok: robot, sslv2-drown; n/a: ticketbleed; not measured: client-renegotiation\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	rep.Vulnerabilities = nil
	if err := Audit(&b, &rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Known attacks") {
		t.Errorf("a report without checks has a Known attacks line:\n%s", b.String())
	}
}
