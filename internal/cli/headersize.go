package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/pflag"
)

// headerSize is --max-header-size, the one response-header limit of
// every command that reads responses: a size in bytes, with an optional
// binary unit (64KiB, 1MiB; K and M mean the same, as in curl's size
// options, so 512k and 2m read as bench's peers take them).
type headerSize int64

// addHeaderSize registers --max-header-size on fs, with the default limit.
func addHeaderSize(fs *pflag.FlagSet, h *headerSize) {
	*h = headerSize(transport.MaxHeaderBytes)
	fs.Var(h, "max-header-size", "refuse a response whose header is larger than this `size` (bytes, or with KiB/MiB), in every protocol")
}

// Set implements pflag.Value: a malformed or out-of-range size is a
// usage error.
func (h *headerSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil || n < minHeaderSize || n > maxHeaderSize {
		return fmt.Errorf("want a size from 1KiB to 1GiB, e.g. 65536, 64KiB or 2MiB")
	}
	*h = headerSize(n)
	return nil
}

// String writes the size in the largest binary unit that holds it exactly.
func (h *headerSize) String() string {
	n := int64(*h)
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

// Type implements pflag.Value.
func (*headerSize) Type() string { return "size" }

// The range of --max-header-size: below 1 KiB not even a plain status
// line with a date and a content type fits; HTTP/2's limit is a 32-bit
// number, and a gigabyte of header is not a response anyone debugs.
const (
	minHeaderSize = 1 << 10
	maxHeaderSize = 1 << 30
)

// byteUnits are the units parseByteSize takes, lower case, binary all.
var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// parseByteSize reads a size such as 65536, 64KiB, 64k or 2MiB.
func parseByteSize(s string) (int64, error) {
	num := strings.ToLower(strings.TrimSpace(s))
	factor := int64(1)
	for _, u := range byteUnits {
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
