package cli

import "testing"

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1", 1, true}, {"4096", 4096, true}, {"512k", 512 << 10, true}, {"512K", 512 << 10, true},
		{"1m", 1 << 20, true}, {"3M", 3 << 20, true}, {"2g", 2 << 30, true}, {"100b", 100, true}, {"100B", 100, true},
		{"", 0, false}, {"k", 0, false}, {"0", 0, false}, {"-1", 0, false}, {"+5", 0, false}, {"1.5m", 0, false},
		{"1kb", 0, false}, {"1 m", 0, false}, {"1t", 0, false}, {"abc", 0, false}, {"9999999999g", 0, false},
	}
	for _, tt := range tests {
		var s byteSize
		err := s.Set(tt.in)
		if (err == nil) != tt.ok || int64(s) != tt.want {
			t.Errorf("Set(%q) = %d, %v; want %d, ok %v", tt.in, s, err, tt.want, tt.ok)
		}
	}
	for _, tt := range []struct {
		n    byteSize
		want string
	}{{1 << 20, "1M"}, {512 << 10, "512K"}, {1000, "1000"}, {3 << 30, "3G"}, {1536 << 10, "1536K"}} {
		if got := tt.n.String(); got != tt.want {
			t.Errorf("byteSize(%d).String() = %q; want %q", int64(tt.n), got, tt.want)
		}
	}
}
