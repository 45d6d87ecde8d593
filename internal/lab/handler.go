package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Limits on what one request to the embedded server may ask for.
const (
	MaxBytes     = 1 << 30 // /bytes/N
	MaxDelay     = 60 * time.Second
	MaxRedirects = 50
)

// indexPage is the small page served at "/".
const indexPage = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>httpslab</title></head>
<body>
<h1>httpslab embedded server</h1>
<ul>
<li><a href="/bytes/1024">/bytes/N</a>: N bytes</li>
<li><a href="/delay/100ms">/delay/D</a>: answer after D (100ms, 2s; a bare number is seconds)</li>
<li><a href="/redirect/3">/redirect/N</a>: N redirect hops, then /</li>
<li><a href="/status/404">/status/C</a>: answer with status code C</li>
<li><a href="/headers">/headers</a>: the request headers, as JSON</li>
</ul>
</body>
</html>
`

// Handler returns the embedded server's endpoints. Bad path values get a
// 400 with a one-line reason; values over the limits are refused the same way.
// Every endpoint reads the whole request body (at most MaxBytes) before it
// answers, so that an upload is measured to its last byte.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, indexPage)
	})
	mux.HandleFunc("/bytes/{n}", serveBytes)
	mux.HandleFunc("/delay/{d}", serveDelay)
	mux.HandleFunc("/redirect/{n}", serveRedirect)
	mux.HandleFunc("/status/{code}", serveStatus)
	mux.HandleFunc("/headers", serveHeaders)
	registerPages(mux)
	return readBody(mux)
}

// bodyBytesKey is the request context key of the request body's size.
type bodyBytesKey struct{}

// readBody reads and discards the request body before h answers. A server
// that answers first cuts an upload short: over HTTP/2 and HTTP/3 the
// client stops sending when the response ends the stream, and net/http
// closes an HTTP/1.1 connection after a response with much of the body
// unread, so a client timing an upload measured only its first part.
func readBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int64
		if r.Body != nil {
			var err error
			n, err = io.Copy(io.Discard, io.LimitReader(r.Body, MaxBytes+1))
			if n > MaxBytes {
				http.Error(w, fmt.Sprintf("request body: want at most %d bytes", int64(MaxBytes)), http.StatusRequestEntityTooLarge)
				return
			}
			if err != nil {
				return // the client went away or sent a broken body
			}
		}
		if n > 0 { // a request without a body, most of them, is not copied
			r = r.WithContext(context.WithValue(r.Context(), bodyBytesKey{}, n))
		}
		h.ServeHTTP(w, r)
	})
}

func badRequest(w http.ResponseWriter, format string, args ...any) {
	http.Error(w, fmt.Sprintf(format, args...), http.StatusBadRequest)
}

// filler is the repeating content of /bytes/N.
var filler = []byte(strings.Repeat("httpslab-", 1024))

func serveBytes(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.ParseInt(r.PathValue("n"), 10, 64)
	if err != nil || n < 0 || n > MaxBytes {
		badRequest(w, "bytes: want an integer from 0 to %d, got %q", MaxBytes, r.PathValue("n"))
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	writeFiller(w, r, n)
}

// writeFiller writes n bytes of filler with their Content-Length (only
// the header for HEAD).
func writeFiller(w http.ResponseWriter, r *http.Request, n int64) {
	w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
	if r.Method == http.MethodHead {
		return
	}
	for n > 0 {
		chunk := filler
		if int64(len(chunk)) > n {
			chunk = chunk[:n]
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		n -= int64(len(chunk))
	}
}

// ParseDelay reads a /delay/D value: a Go duration ("150ms", "2s") or a
// bare number of seconds, as httpbin takes it.
func ParseDelay(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		// Compared as seconds before the conversion: NaN, Inf and huge
		// numbers have no Duration, and converting them gave a reason
		// quoting -2562047h47m16s.
		if !(f >= 0 && f <= MaxDelay.Seconds()) {
			return 0, fmt.Errorf("delay %q: want 0 to %v", s, MaxDelay)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("delay %q: want a duration such as 150ms or 2s", s)
	}
	return d, checkDelay(d)
}

func checkDelay(d time.Duration) error {
	if d < 0 || d > MaxDelay {
		return fmt.Errorf("delay %v: want 0 to %v", d, MaxDelay)
	}
	return nil
}

func serveDelay(w http.ResponseWriter, r *http.Request) {
	d, err := ParseDelay(r.PathValue("d"))
	if err != nil {
		badRequest(w, "%v", err)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "delayed %v\n", d)
}

func serveRedirect(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 0 || n > MaxRedirects {
		badRequest(w, "redirect: want an integer from 0 to %d, got %q", MaxRedirects, r.PathValue("n"))
		return
	}
	target := "/"
	if n > 1 {
		target = "/redirect/" + strconv.Itoa(n-1)
	}
	if n == 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "redirects done")
		return
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func serveStatus(w http.ResponseWriter, r *http.Request) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 200 || code > 599 {
		badRequest(w, "status: want a code from 200 to 599, got %q", r.PathValue("code"))
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	if code != http.StatusNoContent && code != http.StatusNotModified {
		fmt.Fprintln(w, http.StatusText(code))
	}
}

func serveHeaders(w http.ResponseWriter, r *http.Request) {
	// encoding/json writes map keys sorted, so the echo is deterministic.
	bodyBytes, _ := r.Context().Value(bodyBytesKey{}).(int64)
	out := struct {
		Method    string      `json:"method"`
		Proto     string      `json:"proto"`
		Host      string      `json:"host"`
		BodyBytes int64       `json:"body_bytes"` // the request body as received
		Headers   http.Header `json:"headers"`
	}{r.Method, r.Proto, r.Host, bodyBytes, r.Header}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}
