package load

import (
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    float64
		wantErr string
	}{
		{"2000", 2000, ""}, {" 2.5e3 ", 2500, ""}, {"0", 0, ""}, {"1e9", MaxRate, ""},
		{"abc", 0, "want requests per second"}, {"NaN", 0, "want requests per second"}, {"Inf", 0, "want requests per second"},
		{"-5", 0, "positive number"}, {"1e12", 0, "at most 1e+09"}, {"1e400", 0, "at most 1e+09"},
	} {
		got, err := ParseRate(tt.in)
		if got != tt.want || (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseRate(%q) = %g, %v; want %g, %q", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
