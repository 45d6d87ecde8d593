package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// minRTTForRounds is transport.MinRTTForRounds in milliseconds, the unit
// of the result's RTT.
const minRTTForRounds = float64(transport.MinRTTForRounds) / float64(time.Millisecond)

// Findings returns the result as a few sentences a person reads in
// seconds, each generated from a measured effect: what HTTPS costs over
// HTTP per TLS version, what resumption, HTTP/2, HTTP/3, 0-RTT and a
// kept-alive connection save. Effects that are not significant say so.
func (res *Result) Findings() []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	add(res.joined("HTTPS", DimScheme, func(k Key) (string, bool) {
		return "with TLS " + k.TLS, k.Conn == "fresh" && k.Handshake == "full" && k.Proto == transport.HTTP1
	}, "over HTTP on a fresh connection"))
	add(res.joined("HTTPS", DimScheme, func(k Key) (string, bool) {
		return "with TLS " + k.TLS, k.Conn == "reuse" && k.Proto == transport.HTTP1
	}, "over HTTP on a kept-alive connection"))
	if !res.hasDim(DimScheme) {
		add(res.joined("TLS 1.2", DimTLS, func(k Key) (string, bool) {
			return "", k.Conn == "fresh" && k.Handshake == "full" && k.Proto == transport.HTTP1
		}, "over TLS 1.3 on a fresh connection"))
	}
	add(res.joined("resumption", DimHandshake, func(k Key) (string, bool) {
		return "on TLS " + k.TLS, k.Handshake == "resumed" && k.Proto == transport.HTTP1
	}, ""))
	add(res.joined("HTTP/2", DimProto, func(k Key) (string, bool) {
		return "with TLS " + k.TLS, k.Proto == transport.HTTP2 && k.Conn == "fresh" && k.Handshake == "full"
	}, "over HTTP/1.1 on a fresh connection"))
	add(res.joined("HTTP/3", DimProto, func(k Key) (string, bool) {
		return "", k.Proto == transport.HTTP3 && k.Conn == "fresh" && k.Handshake == "full" // TLS 1.3 only
	}, "over HTTP/1.1 on a fresh connection"))
	add(res.joined("0-RTT", DimHandshake, func(k Key) (string, bool) {
		return "", k.Handshake == "0rtt"
	}, "over a full QUIC handshake"))
	add(res.joined("a kept-alive connection", DimConn, func(k Key) (string, bool) {
		return "with TLS " + k.TLS, k.Scheme == "https" && k.Proto == transport.HTTP1
	}, "over a fresh HTTPS connection"))
	return out
}

// hasDim reports whether some effect varies dimension d.
func (res *Result) hasDim(d string) bool {
	for _, e := range res.Effects {
		if e.Dim == d {
			return true
		}
	}
	return false
}

// joined builds one sentence about the effects of dimension d whose
// target variant pick accepts, e.g. "HTTPS costs +1.0 RTT (...) over HTTP
// with TLS 1.3, +2.0 RTT (...) with TLS 1.2". pick returns the clause
// that tells the effects apart.
func (res *Result) joined(subject, d string, pick func(Key) (string, bool), tail string) string {
	var clauses []string
	for _, e := range res.Effects {
		if e.Dim != d {
			continue
		}
		label, ok := pick(res.Variants[e.To].Key)
		if !ok {
			continue
		}
		clauses = append(clauses, strings.TrimSpace(res.verb(e.Diff)+" "+label))
	}
	if len(clauses) == 0 {
		return ""
	}
	first := clauses[0]
	if tail != "" {
		first = insertTail(first, tail)
	}
	return subject + " " + strings.Join(append([]string{first}, clauses[1:]...), ", ")
}

// insertTail puts tail after the amount of a clause, before its label:
// "costs +1.0 RTT (...) with TLS 1.3" becomes "costs +1.0 RTT (...) over
// HTTP with TLS 1.3".
func insertTail(clause, tail string) string {
	if i := strings.LastIndex(clause, ") "); i >= 0 {
		return clause[:i+1] + " " + tail + clause[i+1:]
	}
	return clause + " " + tail
}

// verb states a difference: "costs +1.0 RTT (+51 ms, 95% CI 49 to 53)",
// "saves 1.0 RTT (51 ms, 95% CI 49 to 53)", or "makes no significant
// difference (~ +0.2 ms, p = 0.410)". The interval is at 1 - alpha, as
// Diff's.
func (res *Result) verb(d Diff) string {
	if !d.Significant {
		return fmt.Sprintf("makes no significant difference (~ %s ms, p %s)", FormatSignedMS(d.MS), pText(res.PValue(d)))
	}
	sign, v, lo, hi := "+", d.MS, d.Lo, d.Hi
	word := "costs"
	if d.MS < 0 {
		sign, v, lo, hi, word = "", -d.MS, -d.Hi, -d.Lo, "saves"
	}
	ci := ""
	if d.CILevel > 0 {
		ci = fmt.Sprintf(", %s CI %s to %s", FormatLevel(1-res.Alpha), FormatMS(lo), FormatMS(hi))
	}
	rtt := ms(res.RTT)
	if rtt < minRTTForRounds || v < 0.05*rtt { // "+0.0 RTT" would hide a real, small difference
		if ci == "" {
			return fmt.Sprintf("%s %s%s ms", word, sign, FormatMS(v))
		}
		return fmt.Sprintf("%s %s%s ms (%s)", word, sign, FormatMS(v), strings.TrimPrefix(ci, ", "))
	}
	return fmt.Sprintf("%s %s%.1f RTT (%s%s ms%s)", word, sign, v/rtt, sign, FormatMS(v), ci)
}

// FormatMS formats milliseconds with a precision that suits their size;
// the findings and the reports write every time so.
func FormatMS(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// FormatSignedMS is FormatMS with a sign: "+1.25", "-0.500".
func FormatSignedMS(v float64) string {
	if v >= 0 {
		return "+" + FormatMS(v)
	}
	return FormatMS(v)
}

// FormatLevel writes a level such as 0.95 or 0.995 as "95%" or "99.5%".
func FormatLevel(level float64) string {
	return strconv.FormatFloat(level*100, 'g', 6, 64) + "%"
}

// pText writes a p-value as the table does, after "p": "= 0.052",
// "< 0.001". Two decimals would show 0.052 as "0.05", which reads as
// significant at alpha 0.05.
func pText(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return fmt.Sprintf("= %.3f", p)
}
