package report

import "github.com/httpslab/httpslab/internal/compare"

// CompareJSON is the result of compare --json, inside the
// httpslab/compare envelope (schema/compare.json): where the variants
// ran, the findings and notes the text report prints, and the
// comparison with every sample.
type CompareJSON struct {
	Target   string          `json:"target"` // where: the URL, or the embedded server behind a link
	URL      string          `json:"url"`
	HTTPURL  string          `json:"http_url,omitempty"` // the plain-HTTP URL, when a variant used one
	Findings []string        `json:"findings"`
	Notes    []string        `json:"notes"`
	Result   *compare.Result `json:"comparison"`
}

// NewCompareJSON returns the JSON form of a comparison run against url
// (described as where), with httpURL for its plain-HTTP variants.
func NewCompareJSON(res *compare.Result, where, url, httpURL string) CompareJSON {
	findings, notes := res.Findings(), res.Notes()
	if findings == nil {
		findings = []string{} // nothing measured: an empty list, not null
	}
	if notes == nil {
		notes = []string{}
	}
	return CompareJSON{Target: where, URL: url, HTTPURL: httpURL, Findings: findings, Notes: notes, Result: res}
}
