package transport

import (
	"fmt"
	"strconv"
	"strings"
)

// The range of a response-header limit (--max-header-size): below 1 KiB
// not even a plain status line with a date and a content type fits;
// HTTP/2's limit is a 32-bit number, and a gigabyte of header is not a
// response anyone debugs.
const (
	MinHeaderLimit = 1 << 10
	MaxHeaderLimit = 1 << 30
)

// sizeUnits are the units ParseSize takes, lower case, binary all: K and
// M mean KiB and MiB, as in curl's size options, so 512k and 2m read as
// load tools take them.
var sizeUnits = []struct {
	suffix string
	factor int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// ParseSize reads a size in bytes such as 65536, 64KiB, 64k or 2MiB.
func ParseSize(s string) (int64, error) {
	num := strings.ToLower(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(num, u.suffix); ok {
			num, factor = strings.TrimSpace(rest), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/factor {
		return 0, fmt.Errorf("size %q: want a whole number of bytes, KiB or MiB", s)
	}
	return n * factor, nil
}

// FormatSize writes n bytes in the largest binary unit that holds it
// exactly (1MiB, 1536KiB, 1500), so that ParseSize reads it back.
func FormatSize(n int64) string {
	for _, u := range []struct {
		shift  uint
		suffix string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.suffix)
		}
	}
	return strconv.FormatInt(n, 10)
}
