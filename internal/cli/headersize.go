package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/pflag"
)

// headerSizeFlag is --max-header-size, the one response-header limit of
// every command that reads responses. Its text is a size in bytes, with
// an optional binary unit (64KiB, 1MiB; K and M mean the same, as in
// curl's size options).
type headerSizeFlag struct{ text string }

// add registers --max-header-size on fs.
func (h *headerSizeFlag) add(fs *pflag.FlagSet) {
	fs.StringVar(&h.text, "max-header-size", "1MiB",
		"refuse a response whose header is larger than this `size` (bytes, or with KiB/MiB), in every protocol")
}

// bytes returns the limit in bytes; a malformed or out-of-range size is a
// usage error.
func (h headerSizeFlag) bytes() (int64, error) {
	if h.text == "" {
		return transport.MaxHeaderBytes, nil
	}
	n, err := parseByteSize(h.text)
	if err != nil || n < minHeaderSize || n > maxHeaderSize {
		return 0, usagef("--max-header-size %q: want a size from 1KiB to 1GiB, e.g. 65536, 64KiB or 2MiB", h.text)
	}
	return n, nil
}

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
