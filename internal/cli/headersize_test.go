package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
)

// TestMaxHeaderSize: probe, compare and audit take one --max-header-size
// (a bad size is a usage error), and probe refuses a response header
// that never ends at that size, with the error and a hint.
func TestMaxHeaderSize(t *testing.T) {
	for _, args := range [][]string{
		{"probe", "https://127.0.0.1:1/", "--max-header-size", "100"},
		{"probe", "https://127.0.0.1:1/", "--max-header-size", "lots"},
		{"compare", "https://127.0.0.1:1/", "--max-header-size", "2GiB"},
		{"audit", "127.0.0.1:1", "--max-header-size", "0"},
		{"audit", "127.0.0.1:1", "--max-time", "soon"}, // not the header flag, but audit's other new bound
		{"audit", "127.0.0.1:1", "--max-time", "-3"},
	} {
		code, _, stderr := run(t, context.Background(), args...)
		if code != ExitUsage || !strings.Contains(stderr, args[2]) {
			t.Errorf("%v = %d, %q; want %d and the flag named", args, code, stderr, ExitUsage)
		}
	}
	addr := labtest.NewMisbehaving(t, labtest.HeadersForever).Addr
	start := time.Now()
	code, _, stderr := run(t, context.Background(), "probe", "http://"+addr+"/", "--max-header-size", "64KiB", "--max-time", "20")
	want := []string{"error: GET http://" + addr + "/: reading the response: the response header is larger than the limit of 65536 bytes",
		"hint: the server sent a larger response header than --max-header-size allows"}
	for _, w := range want {
		if code != ExitFailure || !strings.Contains(stderr, w) {
			t.Errorf("probe against endless headers = %d, %q; want %d and %q", code, stderr, ExitFailure, w)
		}
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("probe took %v; want the header refused at 64 KiB, at once", took)
	}
}

// TestHeaderSizeFlag: --max-header-size reads curl's units and the binary
// ones alike, within 1 KiB to 1 GiB, and shows its value in the largest
// unit that holds it.
func TestHeaderSizeFlag(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4K", 4 << 10, true}, {"512k", 512 << 10, true}, {"2m", 2 << 20, true}, {"64KiB", 64 << 10, true}, {"1g", 1 << 30, true},
		{"1023", 0, false}, {"0", 0, false}, {"2GiB", 0, false}, {"1.5m", 0, false}, {"lots", 0, false},
	} {
		var h headerSize
		if err := h.Set(tt.in); (err == nil) != tt.ok || int64(h) != tt.want {
			t.Errorf("Set(%q) = %d, %v; want %d, ok %v", tt.in, h, err, tt.want, tt.ok)
		}
	}
	for _, tt := range []struct {
		n    headerSize
		want string
	}{{1 << 20, "1MiB"}, {512 << 10, "512KiB"}, {1500, "1500"}, {1536 << 10, "1536KiB"}} {
		if got := tt.n.String(); got != tt.want {
			t.Errorf("headerSize(%d).String() = %q; want %q", int64(tt.n), got, tt.want)
		}
	}
}
