package lab

import (
	"testing"
	"time"
)

func TestParseDelay(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"150ms", 150 * time.Millisecond, false},
		{"2s", 2 * time.Second, false},
		{"0", 0, false},
		{"0.5", 500 * time.Millisecond, false},
		{"60", time.Minute, false},
		{"61s", 0, true},
		{"-1ms", 0, true},
		{"-1", 0, true},
		{"soon", 0, true},
		{"", 0, true},
		{"NaN", 0, true},
		{"1e300", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDelay(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("ParseDelay(%q) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzParseDelay: whatever the path holds, an accepted delay is within
// the limits.
func FuzzParseDelay(f *testing.F) {
	for _, s := range []string{"150ms", "2s", "0.01", "NaN", "-0", "1e300", "9223372036854775807ns", "+Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDelay(s)
		if err == nil && (d < 0 || d > MaxDelay) {
			t.Errorf("ParseDelay(%q) = %v, nil; want 0 to %v", s, d, MaxDelay)
		}
	})
}
