package lab_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestBadValuesAnswer400 checks that each endpoint answers a bad value
// with 400 and a reason that quotes the value as given, never a
// converted number (NaN seconds came back as -2562047h47m16s).
func TestBadValuesAnswer400(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	tests := []struct{ path, want string }{
		{"/delay/NaN", `delay "NaN": want 0 to 1m0s`},
		{"/delay/Inf", `delay "Inf": want 0 to 1m0s`},
		{"/delay/-Inf", `delay "-Inf": want 0 to 1m0s`},
		{"/delay/1e10", `delay "1e10": want 0 to 1m0s`},
		{"/delay/-0.5", `delay "-0.5": want 0 to 1m0s`},
		{"/delay/61s", "delay 1m1s: want 0 to 1m0s"},
		{"/bytes/-1", `got "-1"`},
		{"/bytes/99999999999999999999", `got "99999999999999999999"`},
		{"/redirect/51", `got "51"`},
		{"/status/101", `got "101"`},
		{"/status/600", `got "600"`},
	}
	for _, tt := range tests {
		resp, err := http.Get(s.HTTPURL + tt.path)
		if err != nil {
			t.Fatalf("GET %s: %v", tt.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), tt.want) {
			t.Errorf("GET %s = %d %q; want 400 with %q", tt.path, resp.StatusCode, body, tt.want)
		}
	}
}
