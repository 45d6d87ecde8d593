package lab_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// getPage fetches path from the server and returns the status and body.
func getPage(t *testing.T, s *lab.Server, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(s.HTTPURL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading: %v", path, err)
	}
	return resp.StatusCode, string(body), resp.Header
}

var srcAttr = regexp.MustCompile(`src="([^"]+)"`)

// TestPagesOfOneSize checks that /page/images and /page/scripts name n
// distinct resources, each served with the size and type asked for.
func TestPagesOfOneSize(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	tests := []struct {
		path, element, ctype string
		n, size              int
	}{
		{"/page/images?n=360&size=18300", "<img ", "image/png", 360, 18300},
		{"/page/scripts?n=360&size=33100", "<script ", "text/javascript", 360, 33100},
		{"/page/images", "<img ", "image/png", 360, 18300},
		{"/page/scripts?n=7&size=0", "<script ", "text/javascript", 7, 0},
	}
	for _, tt := range tests {
		code, body, _ := getPage(t, s, tt.path)
		srcs := srcAttr.FindAllStringSubmatch(body, -1)
		if code != 200 || strings.Count(body, tt.element) != tt.n || len(srcs) != tt.n {
			t.Fatalf("GET %s = %d with %d %q and %d src; want 200 and %d", tt.path, code, strings.Count(body, tt.element), tt.element, len(srcs), tt.n)
		}
		seen := map[string]bool{}
		for _, m := range srcs {
			seen[m[1]] = true
		}
		if len(seen) != tt.n {
			t.Errorf("GET %s: %d distinct URLs; want %d", tt.path, len(seen), tt.n)
		}
		code, res, h := getPage(t, s, srcs[tt.n-1][1])
		if code != 200 || len(res) != tt.size || h.Get("Content-Type") != tt.ctype {
			t.Errorf("GET %s = %d, %d bytes of %q; want 200, %d bytes of %q", srcs[tt.n-1][1], code, len(res), h.Get("Content-Type"), tt.size, tt.ctype)
		}
	}
}

// TestMixedPage checks that /page/mixed has seed 003's 129 images, of the
// fixed sizes MixedSizes gives, spread from about 1 kB to 300 kB.
func TestMixedPage(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	_, body, _ := getPage(t, s, "/page/mixed")
	srcs := srcAttr.FindAllStringSubmatch(body, -1)
	want := lab.MixedSizes(lab.MixedPageResources)
	if len(srcs) != lab.MixedPageResources || len(want) != lab.MixedPageResources {
		t.Fatalf("/page/mixed has %d images; want %d", len(srcs), lab.MixedPageResources)
	}
	lo, hi := want[0], want[0]
	for i, m := range srcs {
		if !strings.HasSuffix(m[1], "?size="+strconv.Itoa(want[i])) {
			t.Errorf("image %d is %s; want size %d", i, m[1], want[i])
		}
		lo, hi = min(lo, want[i]), max(hi, want[i])
	}
	if lo < 1000 || lo > 5000 || hi < 150000 || hi > 300000 {
		t.Errorf("sizes from %d to %d; want a spread from about 1 kB to 300 kB", lo, hi)
	}
	if again := lab.MixedSizes(lab.MixedPageResources); again[17] != want[17] {
		t.Errorf("MixedSizes changed between calls: %d, then %d", want[17], again[17])
	}
}

// TestStyledPage checks that every resource the styled page and its CSS
// name is served, used or not.
func TestStyledPage(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	for _, p := range append(append([]string{}, lab.StyledPageFetched...), lab.StyledPageUnused...) {
		if code, _, _ := getPage(t, s, p); code != 200 {
			t.Errorf("GET %s = %d; want 200", p, code)
		}
	}
	_, css, h := getPage(t, s, "/page/css/main.css")
	if !strings.HasPrefix(h.Get("Content-Type"), "text/css") || !strings.Contains(css, "@font-face") {
		t.Errorf("main.css is %q: %q; want text/css with @font-face", h.Get("Content-Type"), css)
	}
	if code, _, _ := getPage(t, s, "/page/css/none.css"); code != 404 {
		t.Errorf("GET /page/css/none.css = %d; want 404", code)
	}
}

// TestPageBadValues checks that the page endpoints refuse values out of
// bounds with 400 and the reason.
func TestPageBadValues(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	tests := []struct{ path, want string }{
		{"/page/images?n=0", `n: want an integer from 1 to 2000, got "0"`},
		{"/page/images?n=2001", `got "2001"`},
		{"/page/scripts?size=-1", `size: want an integer from 0 to 16777216, got "-1"`},
		{"/page/scripts?size=1e9", `got "1e9"`},
		{"/page/mixed?n=abc", `got "abc"`},
		{"/page/res/img-1.png?size=16777217", `got "16777217"`},
		{"/page/res/img-1.exe", `got "img-1.exe"`},
		{"/page/res/..%2Fetc.png", `got "../etc.png"`},
	}
	for _, tt := range tests {
		code, body, _ := getPage(t, s, tt.path)
		if code != http.StatusBadRequest || !strings.Contains(body, tt.want) {
			t.Errorf("GET %s = %d %q; want 400 with %q", tt.path, code, body, tt.want)
		}
	}
}

// TestWriteSite checks that the written site holds the pages and every
// resource they name, of the size named.
func TestWriteSite(t *testing.T) {
	dir := t.TempDir()
	if err := lab.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	for name, size := range map[string]int64{
		"page/res/img-359.png": 18300, "page/res/script-0.js": 33100,
		"page/res/img-128.jpg": int64(lab.MixedSizes(lab.MixedPageResources)[128]), "page/res/labsans.woff2": 24000,
		"page/res/unused.woff2": 26000,
	} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Size() != size {
			t.Errorf("%s: %v, %v; want %d bytes", name, fi, err, size)
		}
	}
	for name, want := range map[string]string{"page/styled.html": `href="/page/css/main.css"`, "page/css/main.css": "@font-face", "page/images.html": "img-359.png"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v; want it to hold %q", name, err, want)
		}
	}
}
