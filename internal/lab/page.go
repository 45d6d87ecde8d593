package lab

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Limits and defaults of the generated test pages under /page/.
const (
	// MaxPageResources bounds n on /page/images, /page/scripts and
	// /page/mixed: page's own default limit on the resources of one load.
	MaxPageResources = 2000
	// MaxResourceBytes bounds the size of one generated resource.
	MaxResourceBytes = 16 << 20
	// MixedPageResources is the number of images of /page/mixed: seed
	// 003's "129 images of various sizes".
	MixedPageResources = 129
	// MixedPageSeed fixes the sizes of /page/mixed, so that every server
	// and every run serves the same page.
	MixedPageSeed = 3
)

// registerPages adds the generated test pages: a page of n images or n
// scripts of one size (seed 003's 360 × 18.3 kB and 360 × 33.1 kB), a
// page of images of mixed sizes, and a page whose CSS references fonts and
// background images, some used by the page and some not.
func registerPages(mux *http.ServeMux) {
	mux.HandleFunc("GET /page/images", func(w http.ResponseWriter, r *http.Request) {
		servePageOf(w, r, 360, 18300, "img", "png")
	})
	mux.HandleFunc("GET /page/scripts", func(w http.ResponseWriter, r *http.Request) {
		servePageOf(w, r, 360, 33100, "script", "js")
	})
	mux.HandleFunc("GET /page/mixed", serveMixedPage)
	mux.HandleFunc("GET /page/styled", func(w http.ResponseWriter, r *http.Request) {
		serveText(w, "text/html; charset=utf-8", styledPage)
	})
	mux.HandleFunc("GET /page/css/{name}", serveStyledCSS)
	mux.HandleFunc("GET /page/res/{name}", serveResource)
}

// queryInt reads an integer query parameter from lo to hi, def when absent.
func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s: want an integer from %d to %d, got %q", name, lo, hi, s)
	}
	return n, nil
}

// servePageOf serves a page of n resources of one size, each an <img> or
// a <script src>, each at its own URL so that none is a duplicate.
func servePageOf(w http.ResponseWriter, r *http.Request, defN, defSize int, tag, ext string) {
	n, err := queryInt(r, "n", defN, 1, MaxPageResources)
	if err != nil {
		badRequest(w, "page: %v", err)
		return
	}
	size, err := queryInt(r, "size", defSize, 0, MaxResourceBytes)
	if err != nil {
		badRequest(w, "page: %v", err)
		return
	}
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = size
	}
	serveText(w, "text/html; charset=utf-8", pageOf(fmt.Sprintf("%d %ss of %d bytes", n, tag, size), tag, ext, sizes))
}

// serveMixedPage serves MixedPageResources images (n of them with ?n=)
// whose sizes are drawn from a fixed seed.
func serveMixedPage(w http.ResponseWriter, r *http.Request) {
	n, err := queryInt(r, "n", MixedPageResources, 1, MaxPageResources)
	if err != nil {
		badRequest(w, "page: %v", err)
		return
	}
	serveText(w, "text/html; charset=utf-8", pageOf(fmt.Sprintf("%d images of mixed sizes", n), "img", "jpg", MixedSizes(n)))
}

// MixedSizes returns the image sizes of /page/mixed?n=N: log-uniform from
// 1 kB to 300 kB, as the images of a real page spread (icons to photos),
// drawn from MixedPageSeed so they never change.
func MixedSizes(n int) []int {
	rng := rand.New(rand.NewPCG(MixedPageSeed, MixedPageSeed))
	const lo, hi = 1000.0, 300000.0
	out := make([]int, n)
	for i := range out {
		out[i] = int(lo * math.Pow(hi/lo, rng.Float64()))
	}
	return out
}

// pageOf writes an HTML page with one element per size.
func pageOf(title, tag, ext string, sizes []int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n<h1>%s</h1>\n", title, title)
	for i, size := range sizes {
		url := fmt.Sprintf("/page/res/%s-%d.%s?size=%d", tag, i, ext, size)
		if tag == "script" {
			fmt.Fprintf(&b, "<script src=\"%s\"></script>\n", url)
		} else {
			fmt.Fprintf(&b, "<img src=\"%s\" alt=\"\">\n", url)
		}
	}
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// resourceName is what /page/res/{name} serves: a name and an extension
// that gives the content type.
var resourceName = regexp.MustCompile(`^[a-z0-9-]{1,64}\.(png|jpg|js|css|woff2|ico)$`)

// resourceTypes are the content types of the generated resources.
var resourceTypes = map[string]string{
	"png": "image/png", "jpg": "image/jpeg", "js": "text/javascript", "css": "text/css",
	"woff2": "font/woff2", "ico": "image/x-icon",
}

// serveResource serves ?size= bytes of a resource of the content type of
// the name's extension (writeResource: images that decode, scripts and
// stylesheets that parse).
func serveResource(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	m := resourceName.FindStringSubmatch(name)
	if m == nil {
		badRequest(w, "page resource: want a name such as img-1.png (png, jpg, js, css, woff2 or ico), got %q", name)
		return
	}
	size, err := queryInt(r, "size", 1000, 0, MaxResourceBytes)
	if err != nil {
		badRequest(w, "page resource: %v", err)
		return
	}
	w.Header().Set("Content-Type", resourceTypes[m[1]])
	w.Header().Set("Cache-Control", "max-age=3600")
	w.Header().Set("Content-Length", strconv.Itoa(size))
	if r.Method != http.MethodHead {
		_ = writeResource(w, m[1], int64(size))
	}
}

// serveText writes a generated text resource with its length.
func serveText(w http.ResponseWriter, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write([]byte(body))
}

func serveStyledCSS(w http.ResponseWriter, r *http.Request) {
	css, ok := styledCSS[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	serveText(w, "text/css; charset=utf-8", css)
}

// styledPage is /page/styled: a stylesheet that imports another, two web
// fonts of which the page uses one, and background images of which the
// page's elements match some. A browser fetches the used font and the
// matched backgrounds only; StyledPageFetched lists them.
const styledPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>httpslab styled page</title>
<link rel="stylesheet" href="/page/css/main.css">
<link rel="icon" href="/page/res/favicon.ico?size=1150">
</head>
<body class="page">
<header class="hero"><h1>A page with web fonts and background images</h1></header>
<p class="lead">This text is set in the page's web font.</p>
<div id="banner"></div>
<picture>
<source srcset="/page/res/photo-small.jpg?size=12000 1x, /page/res/photo-large.jpg?size=48000 2x">
<img src="/page/res/photo-fallback.jpg?size=30000" alt="">
</picture>
<script src="/page/res/app.js?size=20000"></script>
</body>
</html>
`

// styledCSS are the stylesheets of /page/styled, by name.
var styledCSS = map[string]string{
	"main.css": `@import url("/page/css/more.css");
@font-face { font-family: "Lab Sans"; src: url(/page/res/labsans.woff2?size=24000) format("woff2"); }
@font-face { font-family: "Lab Unused"; src: url(/page/res/unused.woff2?size=26000) format("woff2"); }
body { font-family: "Lab Sans", sans-serif; margin: 0; }
.hero { background: #223 url("/page/res/hero.jpg?size=60000") no-repeat; }
.sidebar { background-image: url(/page/res/sidebar.png?size=9000); }
`,
	"more.css": `#banner { background-image: url('/page/res/banner.png?size=15000'); }
footer .logo { background: url(/page/res/footer.png?size=3000); }
`,
}

// StyledPageFetched are the paths a browser fetches for /page/styled,
// the page itself first; StyledPageUnused are those its CSS names but the
// page does not use (a font no rule of the page sets, backgrounds of
// selectors nothing on the page matches), and the <img> fallback of a
// <picture> whose <source> was chosen.
var (
	StyledPageFetched = []string{
		"/page/styled", "/page/css/main.css", "/page/res/favicon.ico?size=1150",
		"/page/res/photo-small.jpg?size=12000", "/page/res/app.js?size=20000",
		"/page/css/more.css", "/page/res/labsans.woff2?size=24000", "/page/res/hero.jpg?size=60000",
		"/page/res/banner.png?size=15000",
	}
	StyledPageUnused = []string{
		"/page/res/unused.woff2?size=26000", "/page/res/sidebar.png?size=9000",
		"/page/res/footer.png?size=3000", "/page/res/photo-large.jpg?size=48000",
		"/page/res/photo-fallback.jpg?size=30000",
	}
)

// sitePages are the files of WriteSite that are not filler resources:
// the four test pages with their default parameters, and the stylesheets.
func sitePages() map[string]string {
	same := func(n, size int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = size
		}
		return s
	}
	return map[string]string{
		"page/images.html":  pageOf("360 imgs of 18300 bytes", "img", "png", same(360, 18300)),
		"page/scripts.html": pageOf("360 scripts of 33100 bytes", "script", "js", same(360, 33100)),
		"page/mixed.html":   pageOf(fmt.Sprintf("%d images of mixed sizes", MixedPageResources), "img", "jpg", MixedSizes(MixedPageResources)),
		"page/styled.html":  styledPage,
		"page/css/main.css": styledCSS["main.css"],
		"page/css/more.css": styledCSS["more.css"],
	}
}

// resourceRef finds the generated resources a page or stylesheet names.
var resourceRef = regexp.MustCompile(`/page/res/([a-z0-9-]{1,64}\.[a-z0-9]{1,5})\?size=(\d{1,8})`)

// WriteSite writes the test pages, with their default parameters, as
// static files under dir, for any other server (nginx in the tests):
// page/images.html, page/scripts.html, page/mixed.html and
// page/styled.html, the stylesheets under page/css/, and every resource
// they name under page/res/ with the size its ?size= says (a static
// server ignores the query).
func WriteSite(dir string) error {
	files := sitePages()
	sizes := map[string]int{}
	for _, text := range files {
		for _, m := range resourceRef.FindAllStringSubmatch(text, -1) {
			size, _ := strconv.Atoi(m[2])
			sizes["page/res/"+m[1]] = min(size, MaxResourceBytes)
		}
	}
	for name, text := range files {
		if err := writeSiteFile(dir, name, []byte(text)); err != nil {
			return err
		}
	}
	for name, size := range sizes {
		var b bytes.Buffer
		writeResource(&b, strings.TrimPrefix(filepath.Ext(name), "."), int64(size))
		if err := writeSiteFile(dir, name, b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeSiteFile(dir, name string, data []byte) error {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("writing the test site: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing the test site: %w", err)
	}
	return nil
}
