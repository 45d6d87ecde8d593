package cli

import (
	"fmt"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/pflag"
)

// headerSize is --max-header-size, the one response-header limit of
// every command that reads responses: a size in bytes, with an optional
// binary unit (64KiB, 1MiB, or 512k and 2m as curl and bench's peers
// write them), from transport.MinHeaderLimit to MaxHeaderLimit.
type headerSize int64

// addHeaderSize registers --max-header-size on fs, with the default limit.
func addHeaderSize(fs *pflag.FlagSet, h *headerSize) {
	*h = headerSize(transport.MaxHeaderBytes)
	fs.Var(h, "max-header-size", "refuse a response whose header is larger than this `size` (bytes, or with KiB/MiB), in every protocol")
}

// Set implements pflag.Value: a malformed or out-of-range size is a
// usage error.
func (h *headerSize) Set(s string) error {
	n, err := transport.ParseSize(s)
	if err != nil || n < transport.MinHeaderLimit || n > transport.MaxHeaderLimit {
		return fmt.Errorf("want a size from 1KiB to 1GiB, e.g. 65536, 64KiB or 2MiB")
	}
	*h = headerSize(n)
	return nil
}

// String writes the size in the largest binary unit that holds it exactly.
func (h *headerSize) String() string { return transport.FormatSize(int64(*h)) }

// Type implements pflag.Value.
func (*headerSize) Type() string { return "size" }
