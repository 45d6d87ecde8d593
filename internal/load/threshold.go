package load

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Threshold is one --fail-if condition, such as "p99>200ms",
// "errors>0.1%", "errors>10", "rps<1000" or "mean>50ms". Latency metrics
// (pNN, mean, max) read the total latency histogram.
type Threshold struct {
	Text   string
	Metric string  // p99, p99.9, mean, max, errors, rps
	Op     string  // >, >=, <, <=
	Value  float64 // microseconds, a fraction (percent given) or a count or rate
	Pct    bool    // Value is a share of requests (errors only)
}

// ParseThreshold reads a --fail-if condition.
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{Text: s}
	expr := strings.ReplaceAll(s, " ", "")
	i := strings.IndexAny(expr, "<>")
	if i <= 0 {
		return t, fmt.Errorf("threshold %q: want METRIC>VALUE or METRIC<VALUE, e.g. p99>200ms", s)
	}
	t.Metric, t.Op = strings.ToLower(expr[:i]), expr[i:i+1]
	rest := expr[i+1:]
	if strings.HasPrefix(rest, "=") {
		t.Op += "="
		rest = rest[1:]
	}
	var err error
	switch {
	case t.Metric == "mean" || t.Metric == "max" || isPercentile(t.Metric):
		var d time.Duration
		d, err = time.ParseDuration(rest)
		t.Value = float64(d) / float64(time.Microsecond)
	case t.Metric == "errors" && strings.HasSuffix(rest, "%"):
		t.Pct = true
		t.Value, err = strconv.ParseFloat(strings.TrimSuffix(rest, "%"), 64)
		t.Value /= 100
	case t.Metric == "errors" || t.Metric == "rps":
		t.Value, err = strconv.ParseFloat(rest, 64)
	default:
		return t, fmt.Errorf("threshold %q: unknown metric %q (want pNN, mean, max, errors or rps)", s, t.Metric)
	}
	if _, numErr := strconv.ParseFloat(rest, 64); err != nil && numErr == nil && !strings.HasPrefix(t.Metric, "e") && t.Metric != "rps" {
		// "p99>200" (wrk2 users write ms): a latency needs its unit.
		return t, fmt.Errorf("threshold %q: latency %q needs a unit, e.g. %sms", s, rest, rest)
	}
	if err != nil || rest == "" {
		return t, fmt.Errorf("threshold %q: bad value %q", s, rest)
	}
	// A NaN never compares true, and no measured value is negative or
	// above 100% of the requests: such a threshold could never trip.
	if math.IsNaN(t.Value) || math.IsInf(t.Value, 0) || t.Value < 0 || t.Pct && t.Value > 1 {
		return t, fmt.Errorf("threshold %q: value %q is out of range (want a finite value from 0, a share up to 100%%)", s, rest)
	}
	return t, nil
}

// ParseThresholds reads --fail-if conditions.
func ParseThresholds(conds []string) ([]Threshold, error) {
	var ths []Threshold
	for _, s := range conds {
		t, err := ParseThreshold(s)
		if err != nil {
			return nil, err
		}
		ths = append(ths, t)
	}
	return ths, nil
}

func isPercentile(m string) bool {
	if !strings.HasPrefix(m, "p") {
		return false
	}
	p, err := strconv.ParseFloat(m[1:], 64)
	return err == nil && p > 0 && p <= 100
}

// Tripped reports whether the result meets the condition (and so fails
// the run), with the measured value as text.
func (t Threshold) Tripped(r *Result) (bool, string) {
	var v float64
	var shown string
	h := r.Latency.Total
	switch {
	case t.Metric == "mean":
		v = h.Mean()
	case t.Metric == "max":
		v = float64(h.Max())
	case isPercentile(t.Metric):
		p, _ := strconv.ParseFloat(t.Metric[1:], 64)
		v = float64(h.ValueAtQuantile(p))
	case t.Metric == "errors" && t.Pct:
		v = r.ErrorRate()
		shown = fmt.Sprintf("%.3g%%", 100*v)
	case t.Metric == "errors":
		v = float64(r.Errors)
		shown = strconv.FormatInt(r.Errors, 10)
	case t.Metric == "rps":
		v = r.RequestRate()
		shown = fmt.Sprintf("%.1f", v)
	}
	if shown == "" {
		shown = time.Duration(v * float64(time.Microsecond)).String()
	}
	switch t.Op {
	case ">":
		return v > t.Value, shown
	case ">=":
		return v >= t.Value, shown
	case "<":
		return v < t.Value, shown
	}
	return v <= t.Value, shown
}
