package transport

import "testing"

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"65536", 65536, true},
		{"64KiB", 64 << 10, true},
		{"64k", 64 << 10, true},
		{"2 MiB", 2 << 20, true},
		{"1mb", 1 << 20, true},
		{"1G", 1 << 30, true},
		{"512b", 512, true},
		{"", 0, false},
		{"MiB", 0, false},
		{"-1", 0, false},
		{"1.5MiB", 0, false},
		{"99999999999999999999", 0, false},
		{"9999999999999GiB", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{1 << 20, "1MiB"}, {512 << 10, "512KiB"}, {1500, "1500"}, {1536 << 10, "1536KiB"}, {1 << 30, "1GiB"}} {
		if got := FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q; want %q", tt.n, got, tt.want)
		}
	}
}
