package probe

import "testing"

func TestCurlMaxRedirects(t *testing.T) {
	for _, tt := range []struct {
		in, want int
		ok       bool
	}{{0, NoRedirects, true}, {-1, MaxRedirectsLimit, true}, {5, 5, true}, {1000, 1000, true}, {1001, 0, false}, {-2, 0, false}} {
		got, err := CurlMaxRedirects(tt.in)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("CurlMaxRedirects(%d) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
