package labtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Handler serves each connection with h over HTTP/1.1 (net/http's server
// on the one connection): a mode for servers whose misbehaviour is in
// what they answer to each path, as a page's documents and stylesheets.
func Handler(name string, h http.Handler) Mode {
	return Mode{name: name, serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) {
		serveHTTP(ctx, c, h)
	}}
}

// serveHTTP serves c with h until the connection ends or ctx does.
func serveHTTP(ctx context.Context, c net.Conn, h http.Handler) {
	ln := &oneConn{conn: c, closed: make(chan struct{})}
	srv := &http.Server{
		Handler:     h,
		BaseContext: func(net.Listener) context.Context { return ctx },
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				ln.Close()
			}
		},
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	srv.Serve(ln)
	<-ln.closed // Serve returns once Accept fails, before the connection ends
}

// oneConn is a listener that accepts conn once and then blocks until it
// is closed.
type oneConn struct {
	conn   net.Conn
	once   sync.Once
	taken  bool
	mu     sync.Mutex
	closed chan struct{}
}

func (l *oneConn) Accept() (net.Conn, error) {
	l.mu.Lock()
	if !l.taken {
		l.taken = true
		l.mu.Unlock()
		return l.conn, nil
	}
	l.mu.Unlock()
	<-l.closed
	return nil, net.ErrClosed
}

func (l *oneConn) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *oneConn) Addr() net.Addr { return l.conn.LocalAddr() }

// Modes of a web page whose document or stylesheets a page load must
// bound, served over plain HTTP/1.1.
var (
	// PageEndless answers every path with an HTML document that never
	// ends: paragraphs written as fast as the client reads.
	PageEndless = PageTrickle(0)
	// PageResources answers "/" with a document naming 100,000 distinct
	// images and every other path with a small image.
	PageResources = Handler("page of 100,000 resources", http.HandlerFunc(manyResources))
	// PageCSSImports answers "/" with a document linking two
	// stylesheets: /self.css, which imports itself, and /chain/0.css,
	// which imports /chain/1.css, which imports /chain/2.css, and so on
	// (up to maxImportChain, far past any client's nesting limit).
	PageCSSImports = Handler("recursive CSS @import", http.HandlerFunc(cssImports))
)

// PageTrickle answers every path with an HTML document that never ends,
// one paragraph per interval (as fast as the client reads when interval
// is 0), until endlessBytes or endlessTime.
func PageTrickle(interval time.Duration) Mode {
	name := "endless HTML"
	if interval > 0 {
		name = "endless HTML, one paragraph per " + interval.String()
	}
	return Handler(name, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		endlessHTML(w, r, interval)
	}))
}

func endlessHTML(w http.ResponseWriter, r *http.Request, interval time.Duration) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(endlessTime)
	rc.SetWriteDeadline(deadline)
	para := "<p>" + strings.Repeat("endless ", 128) + "</p>\n"
	fmt.Fprint(w, "<!doctype html><html><head><title>endless</title></head><body>\n")
	for sent := 0; sent < endlessBytes && r.Context().Err() == nil && time.Now().Before(deadline); sent += len(para) {
		if _, err := fmt.Fprint(w, para); err != nil {
			return
		}
		if interval > 0 {
			if rc.Flush() != nil {
				return
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(interval):
			}
		}
	}
}

// pageResources is the number of images PageResources names.
const pageResources = 100000

func manyResources(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		w.Header().Set("Content-Type", "image/gif")
		fmt.Fprint(w, "GIF89a")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><html><head><title>many</title></head><body>\n")
	for i := range pageResources {
		fmt.Fprintf(w, "<img src=\"/img/%d.gif\">\n", i)
	}
	fmt.Fprint(w, "</body></html>\n")
}

// maxImportChain bounds the chain of stylesheets PageCSSImports serves:
// past it, /chain/N.css is 404.
const maxImportChain = 1000

func cssImports(w http.ResponseWriter, r *http.Request) {
	switch p := r.URL.Path; {
	case p == "/":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>imports</title>`+
			`<link rel="stylesheet" href="/self.css"><link rel="stylesheet" href="/chain/0.css">`+
			"</head><body><p>imports</p></body></html>\n")
	case p == "/self.css":
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "@import \"/self.css\";\nbody { color: black }\n")
	case strings.HasPrefix(p, "/chain/") && strings.HasSuffix(p, ".css"):
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, "/chain/"), ".css"))
		if err != nil || n < 0 || n >= maxImportChain {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprintf(w, "@import \"/chain/%d.css\";\np { margin: %dpx }\n", n+1, n)
	default:
		http.NotFound(w, r)
	}
}
