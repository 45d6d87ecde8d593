package report

import (
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestAuditKnownAttacksLine: one line gives each check's outcome, in the
// order the checks ran; a report without checks has no such line.
func TestAuditKnownAttacksLine(t *testing.T) {
	rep := tlsscan.Report{Enumeration: &tlsscan.Enumeration{}, Vulnerabilities: []tlsscan.VulnCheck{
		{ID: "heartbleed", Status: tlsscan.Vulnerable}, {ID: "ticketbleed", Status: tlsscan.NotApplicable},
		{ID: "robot", Status: tlsscan.NotVulnerable}, {ID: "client-renegotiation", Status: tlsscan.NotMeasured}}}
	var b strings.Builder
	if err := Audit(&b, &rep); err != nil {
		t.Fatal(err)
	}
	want := "Known attacks heartbleed VULNERABLE, ticketbleed n/a, robot ok, client-renegotiation not measured\n"
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
