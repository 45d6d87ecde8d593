package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag value in bytes, written as curl writes sizes
// (--max-filesize): a whole number with an optional unit, k, m or g in
// either case for KiB, MiB and GiB, or b for bytes. Zero and negative
// sizes are refused.
type byteSize int64

var errSize = errors.New("want a positive whole number of bytes, with an optional unit k, m or g (as in 512k, 1m)")

// Set implements pflag.Value.
func (s *byteSize) Set(v string) error {
	digits, shift := v, 0
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'k', 'K':
			shift = 10
		case 'm', 'M':
			shift = 20
		case 'g', 'G':
			shift = 30
		case 'b', 'B':
		default:
			n++ // no unit
		}
		digits = v[:n-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 || strings.HasPrefix(digits, "+") {
		return errSize
	}
	if n > int64(1)<<(62-shift) {
		return fmt.Errorf("%s is too large", v)
	}
	*s = byteSize(n << shift)
	return nil
}

// String writes the size in the largest unit that holds it exactly.
func (s *byteSize) String() string {
	n := int64(*s)
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{30, "G"}, {20, "M"}, {10, "K"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}

// Type implements pflag.Value.
func (*byteSize) Type() string { return "size" }
