package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/httpslab/httpslab/internal/stats"
)

// Notes returns what a reader must know to trust the numbers, written
// from the result: too few runs for any difference to be significant,
// and responses of another size than the baseline's (another resource:
// a plain-HTTP URL that serves an error page or another site, not the
// file measured over HTTPS). The text report prints them after "note:",
// the JSON document carries them.
func (res *Result) Notes() []string {
	var out []string
	if n := res.minN(); n > 0 && stats.MinP(n, n) >= res.Alpha {
		runs := "runs"
		if n == 1 {
			runs = "run"
		}
		out = append(out, fmt.Sprintf("with %d %s per variant no difference can be significant at alpha %g (the smallest p-value is %.3f); use more runs (-n)",
			n, runs, res.Alpha, stats.MinP(n, n)))
	}
	if odd := res.otherBodies(); len(odd) > 0 {
		out = append(out, fmt.Sprintf("the responses differ in size from the baseline's (%s %.0f bytes of body): %s; are the URLs the same resource?",
			res.Variants[0].Name, res.Variants[0].BodyBytes, strings.Join(odd, ", ")))
	}
	return out
}

// otherBodies lists the measured variants whose median body size is more
// than 10% (and 16 bytes) away from the baseline's, as "name N bytes".
func (res *Result) otherBodies() []string {
	if len(res.Variants) == 0 || res.Variants[0].Total.N == 0 {
		return nil
	}
	ref := res.Variants[0].BodyBytes
	var out []string
	for _, v := range res.Variants[1:] {
		if d := math.Abs(v.BodyBytes - ref); v.Total.N > 0 && d > 16 && d > 0.1*ref {
			out = append(out, fmt.Sprintf("%s %.0f bytes", v.Name, v.BodyBytes))
		}
	}
	return out
}

// PValue is the p-value significance is judged by: Holm-adjusted with Holm on.
func (res *Result) PValue(d Diff) float64 {
	if res.Holm {
		return d.PHolm
	}
	return d.P
}

// minN is the smallest number of samples of a measured variant.
func (res *Result) minN() int {
	n := 0
	for _, v := range res.Variants {
		if v.Total.N > 0 && (n == 0 || v.Total.N < n) {
			n = v.Total.N
		}
	}
	return n
}
