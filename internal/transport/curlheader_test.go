package transport

import (
	"net/http"
	"testing"
)

// TestCurlHeaders checks that curl's own options set their fields and
// that a field given with -H wins.
func TestCurlHeaders(t *testing.T) {
	h := http.Header{"Referer": {"from -H"}}
	CurlHeaders{UserAgent: "ua/1", Referer: "ignored", Compressed: true, User: "me:secret"}.Apply(h)
	want := map[string]string{"User-Agent": "ua/1", "Referer": "from -H", "Accept-Encoding": curlAcceptEncoding, "Authorization": "Basic bWU6c2VjcmV0"}
	for name, v := range want {
		if got := h.Get(name); got != v {
			t.Errorf("after Apply, %s = %q; want %q", name, got, v)
		}
	}
	empty := http.Header{}
	CurlHeaders{}.Apply(empty)
	if len(empty) != 0 {
		t.Errorf("CurlHeaders{}.Apply set %v; want nothing", empty)
	}
}
