package report

import (
	"strings"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// auditVulns writes one line with the outcome of each vulnerability
// check: "ok", "n/a" (the server lacks what the attack needs),
// "VULNERABLE" (a finding says more) or "not measured" (listed under
// "Not checked" with the reason).
func auditVulns(b *strings.Builder, r *tlsscan.Report) {
	if len(r.Vulnerabilities) == 0 {
		return
	}
	var parts []string
	for _, c := range r.Vulnerabilities {
		parts = append(parts, c.ID+" "+vulnStatus(c.Status))
	}
	auditLine(b, "Known attacks", "%s", strings.Join(parts, ", "))
}

func vulnStatus(s tlsscan.VulnStatus) string {
	switch s {
	case tlsscan.Vulnerable:
		return "VULNERABLE"
	case tlsscan.NotApplicable:
		return "n/a"
	case tlsscan.NotMeasured:
		return "not measured"
	}
	return string(s)
}
