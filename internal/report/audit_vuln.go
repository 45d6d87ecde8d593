package report

import (
	"strings"

	"github.com/httpslab/httpslab/internal/tlsscan"
)

// auditVulns writes one line with the outcome of the vulnerability
// checks, grouped: "VULNERABLE" (a finding says more), "ok", "n/a" (the
// server lacks what the attack needs) and "not measured" (listed under
// "Not checked" with the reason), each with the checks' ids in the order
// they ran.
func auditVulns(b *strings.Builder, r *tlsscan.Report) {
	if len(r.Vulnerabilities) == 0 {
		return
	}
	var parts []string
	for _, s := range []tlsscan.VulnStatus{tlsscan.Vulnerable, tlsscan.NotVulnerable, tlsscan.NotApplicable, tlsscan.NotMeasured} {
		var ids []string
		for _, c := range r.Vulnerabilities {
			if c.Status == s {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) > 0 {
			parts = append(parts, vulnStatus(s)+": "+strings.Join(ids, ", "))
		}
	}
	auditLine(b, "Known attacks", "%s", strings.Join(parts, "; "))
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
