package compare

import (
	"slices"
	"testing"
)

func TestWithoutTLS13(t *testing.T) {
	names := func(keys []Key) []string {
		var out []string
		for _, k := range keys {
			out = append(out, k.Name())
		}
		return out
	}
	proto, err := Matrix([]string{DimScheme, DimProto})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		keys []Key
		want []string
	}{
		{"default", DefaultMatrix(), []string{"http h1", "https h1 TLS1.2", "https h1 TLS1.2 resumed", "https h2 TLS1.2",
			"http h1 keep-alive", "https h1 TLS1.2 keep-alive"}},
		{"scheme,proto", proto, []string{"http h1", "https h1 TLS1.2", "https h2 TLS1.2"}},
	}
	for _, tt := range tests {
		if got := names(WithoutTLS13(tt.keys)); !slices.Equal(got, tt.want) {
			t.Errorf("WithoutTLS13(%s) = %q; want %q", tt.name, got, tt.want)
		}
	}
}
