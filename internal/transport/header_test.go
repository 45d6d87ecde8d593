package transport

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHeaderLines(t *testing.T) {
	got, err := ParseHeaderLines([]string{"x-a: 1", "X-A: 2", "Accept:", "X-Empty;", " Host : example.com "})
	want := http.Header{"X-A": {"1", "2"}, "Accept": {}, "X-Empty": {""}, "Host": {"example.com"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("ParseHeaderLines = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"no colon", ": value", "two words: x", "tab\tname: x"} {
		if _, err := ParseHeaderLines([]string{bad}); err == nil {
			t.Errorf("ParseHeaderLines(%q) = nil error; want one", bad)
		}
	}
}
