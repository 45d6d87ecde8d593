package tlsscan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// Severity ranks a finding.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
)

var severityNames = []string{"info", "low", "medium", "high"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return strconv.Itoa(int(s))
}

// MarshalText writes the severity by name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity by name, so that a report reads back
// what audit --json wrote.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// ParseSeverity reads a severity name (info, low, medium, high).
func ParseSeverity(name string) (Severity, error) {
	i := slices.Index(severityNames, strings.ToLower(name))
	if i < 0 {
		return 0, fmt.Errorf("unknown severity %q (want one of %s)", name, strings.Join(severityNames, ", "))
	}
	return Severity(i), nil
}

// Category says what a finding is about. Speed findings come first in a
// report; safety findings cost no time; information is neither.
type Category string

// Categories of findings.
const (
	Speed  Category = "speed"
	Safety Category = "safety"
	About  Category = "info"
)

// Cost is what a finding costs a client, in the units httpslab measures.
type Cost struct {
	// RoundTrips is the number of extra round trips, and Time the same
	// at the measured RTT.
	RoundTrips float64  `json:"round_trips,omitempty"`
	Time       Duration `json:"time_ns,omitempty"`
	// Bytes is the extra bytes on the wire.
	Bytes int64 `json:"bytes,omitempty"`
	// Per says when the cost is paid ("per new connection", "per visit").
	Per string `json:"per,omitempty"`
	// Note gives costs that have no number here, such as server CPU.
	Note string `json:"note,omitempty"`
	// Fails names the clients that cannot connect at all because of the
	// finding: an outage for them, whatever the other costs.
	Fails string `json:"fails,omitempty"`
	// NotPriced says why RoundTrips are not turned into Time: on loopback
	// the measured RTT is computation, not network, and no time is given.
	NotPriced string `json:"not_priced,omitempty"`
}

// Finding is one problem or fact the audit found.
type Finding struct {
	// ID is stable across versions of httpslab, for scripts and CI.
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Category Category `json:"category"`
	Title    string   `json:"title"`
	// Evidence is what was observed.
	Evidence string `json:"evidence"`
	Cost     Cost   `json:"cost"`
	// Fix is the nginx configuration that fixes it, for the nginx version
	// the server revealed when it did.
	Fix    string `json:"fix,omitempty"`
	Reason string `json:"reason"`
	// Attacks names the published attacks whose conditions the finding
	// is (BEAST, LUCKY13, SWEET32, LOGJAM, FREAK, RC4, BREACH), as
	// auditors search for them.
	Attacks   []string `json:"attacks,omitempty"`
	Reference string   `json:"reference,omitempty"`
}

// References used by findings.
const (
	refMozilla  = "Mozilla server-side TLS guidelines, https://wiki.mozilla.org/Security/Server_Side_TLS"
	refRFC8446  = "RFC 8446 (TLS 1.3)"
	refRFC8996  = "RFC 8996 (deprecating TLS 1.0 and 1.1)"
	refRFC9113  = "RFC 9113 (HTTP/2)"
	refRFC9114  = "RFC 9114 (HTTP/3), RFC 7838 (Alt-Svc)"
	refRFC6797  = "RFC 6797 (HSTS), https://hstspreload.org"
	refRFC5077  = "RFC 5077 (TLS 1.2 session tickets), RFC 5246 7.3 (session IDs)"
	refRFC6066  = "RFC 6066 section 8 (OCSP stapling), RFC 6960 (OCSP)"
	refRFC6928  = "RFC 6928 (initial window of 10 segments)"
	refNginxSSL = "https://nginx.org/en/docs/http/ngx_http_ssl_module.html"
)

// rule looks at a report and returns the findings it owns.
type rule func(r *Report) []Finding

// findings applies all rules and orders the result: speed first, then
// safety, then information; within each, by severity then id.
func findings(r *Report) []Finding {
	var out []Finding
	for _, rl := range slices.Concat(tlsRules, httpRules, vulnRules, clientRules, dnsRules) {
		out = append(out, rl(r)...)
	}
	if r.RTT < transport.MinRTTForRounds {
		// A time in the JSON would read as the cost: say why there is none.
		why := fmt.Sprintf("the measured RTT (%s) is below %s: loopback computation, not network", ms(r.RTT), ms(transport.MinRTTForRounds))
		for i := range out {
			if c := &out[i].Cost; c.RoundTrips != 0 {
				c.Time, c.NotPriced = 0, why
			}
		}
	}
	order := map[Category]int{Speed: 0, Safety: 1, About: 2}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if d := order[a.Category] - order[b.Category]; d != 0 {
			return d
		}
		if a.Severity != b.Severity {
			return int(b.Severity) - int(a.Severity)
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// rtts returns a cost of n round trips at the report's RTT.
func (r *Report) rtts(n float64, per string) Cost {
	return Cost{RoundTrips: n, Time: Duration(time.Duration(n * float64(r.RTT))), Per: per}
}

// one wraps a single finding as a rule result.
func one(f Finding) []Finding { return []Finding{f} }

// nginxAtLeast reports whether the nginx version v is at least want; an
// unknown version is not.
func nginxAtLeast(v, want string) bool {
	if v == "" {
		return false
	}
	a, b := strings.Split(v, "."), strings.Split(want, ".")
	for i := range b {
		x, y := 0, 0
		if i < len(a) {
			x, _ = strconv.Atoi(a[i])
		}
		y, _ = strconv.Atoi(b[i])
		if x != y {
			return x > y
		}
	}
	return true
}

// versionFix picks the fix for the server's nginx version: newer from
// since on, older before; both, labelled, when the version is unknown.
func versionFix(nginx, since, newer, older string) string {
	switch {
	case nginx == "":
		return fmt.Sprintf("# nginx %s or later:\n%s\n# older nginx:\n%s", since, newer, older)
	case nginxAtLeast(nginx, since):
		return newer
	}
	return older
}

// suiteNames lists suite names, comma separated.
func suiteNames(ids []Suite) string {
	var n []string
	for _, s := range ids {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// ms formats a duration in milliseconds for evidence texts.
func ms(d Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}
