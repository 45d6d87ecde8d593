package report

import (
	"fmt"
	"strconv"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// ms formats d in milliseconds with microsecond precision: "12.345 ms".
func ms(d time.Duration) string {
	return msNum(d) + " ms"
}

// msNum is ms without the unit.
func msNum(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64)
}

// rtts expresses d in round trips of rtt, "1.0 RTT"; empty when the RTT
// is unknown.
func rtts(d, rtt time.Duration) string {
	if rtt < transport.MinRTTForRounds {
		return ""
	}
	return fmt.Sprintf("%.1f RTT", float64(d)/float64(rtt))
}

// byteCount formats n bytes with thousands separators: "12,345 B".
func byteCount(n int64) string {
	return groupDigits(n) + " B"
}

// groupDigits writes n with commas every three digits.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// curlSeconds formats d as curl prints times: seconds with six decimals,
// truncated to the microsecond.
func curlSeconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	us := d.Microseconds()
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}
