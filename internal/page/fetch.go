package page

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// UserAgent is the User-Agent of page's requests unless a header
// replaces it.
const UserAgent = "httpslab-page"

// accepts are the Accept headers a browser sends per kind of resource.
var accepts = map[Kind]string{
	KindDocument:   "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
	KindStylesheet: "text/css,*/*;q=0.1",
	KindImage:      "image/avif,image/webp,image/apng,image/*,*/*;q=0.8",
}

// urgencies are the RFC 9218 Priority header values Chromium sends over
// HTTP/2 and HTTP/3, by kind: the document and stylesheets and fonts
// most urgent, blocking scripts next, images and the rest low (an image
// in view is raised after layout, which page does not do). The document
// and images are incremental.
var urgencies = map[Kind]string{
	KindDocument: "u=0, i", KindStylesheet: "u=0", KindFont: "u=0", KindScript: "u=1",
	KindImage: "u=3, i", KindOther: "u=3",
}

// Urgency is the RFC 9218 urgency, 0 (most urgent) to 7, that a browser
// gives a resource of kind k; it is sent in the Priority header over
// HTTP/2 and HTTP/3.
func (k Kind) Urgency() int {
	u := urgencies[k]
	if len(u) < 3 {
		return 3 // RFC 9218's default
	}
	return int(u[2] - '0')
}

// stamps are the moments the HTTP client reports for a request, from its
// own goroutines (HTTP/2's and HTTP/3's trace hooks).
type stamps struct {
	mu             sync.Mutex
	wrote, firstBy time.Time
}

func (s *stamps) setWrote(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote.IsZero() {
		s.wrote = t
	}
}

func (s *stamps) setFirstByte(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstBy.IsZero() {
		s.firstBy = t
	}
}

func (s *stamps) get() (wrote, firstByte time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wrote, s.firstBy
}

func (s *stamps) firstByte() time.Time { _, fb := s.get(); return fb }

// newRequest builds r's request with a browser's headers and a trace
// that stamps the end of the request and the first response byte.
func (l *loader) newRequest(ctx context.Context, r *request) (*http.Request, error) {
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest:         func(httptrace.WroteRequestInfo) { r.st.setWrote(time.Now()); r.alive() },
		GotFirstResponseByte: func() { r.st.setFirstByte(time.Now()); r.alive() },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", UserAgent)
	accept := accepts[r.ref.Kind]
	if accept == "" {
		accept = "*/*"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip, br")
	if l.cfg.Protocol.major() > 1 {
		req.Header.Set("Priority", urgencies[r.ref.Kind])
	}
	for k, vs := range l.cfg.Header {
		if len(vs) == 0 {
			req.Header.Del(k)
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
		req.Header.Del("Host")
	}
	return req, nil
}

// counted counts the bytes of a response body as received.
type counted struct {
	r     io.Reader
	n     int64
	alive func()     // called for every read that brought bytes
	proc  *processor // the modelled browser, which processes the bytes as they come; nil without it
	// queued is when proc will have processed the response's headers and
	// the bytes read so far.
	queued time.Time
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if n > 0 && c.alive != nil {
		c.alive()
	}
	if n > 0 && c.proc != nil {
		c.queued = c.proc.read(time.Now(), n)
	}
	return n, err
}

// consume reads r's response body to its end, discovering resources in a
// document or a stylesheet as it goes, and records the status, the
// protocol and the size. A status of 400 or more fails the request (its
// body is still read: it took the connection's time).
func (l *loader) consume(r *request, resp *http.Response) error {
	r.status, r.proto = resp.StatusCode, resp.Proto
	body := &counted{r: io.LimitReader(resp.Body, l.cfg.MaxResourceBytes+1), alive: r.alive, proc: l.proc}
	if l.proc != nil {
		body.queued = l.proc.head(time.Now())
	}
	defer func() { r.bytes, r.queued = body.n, body.queued }()
	if resp.ProtoMajor != l.cfg.Protocol.major() {
		return fmt.Errorf("%w: %s came over %s on a %s load", ErrProtocol, r.u.Redacted(), resp.Proto, l.cfg.Protocol)
	}
	var err error
	switch {
	case redirects(resp.StatusCode):
		err = l.redirected(r, resp)
	case resp.StatusCode < 400 && (r.ref.Kind == KindDocument || r.ref.Kind == KindStylesheet):
		err = l.discover(r, resp, body)
	}
	if _, cerr := io.Copy(io.Discard, body); err == nil && cerr != nil {
		err = fmt.Errorf("reading the body: %w", cerr)
	}
	switch {
	case err != nil:
		return err
	case body.n > l.cfg.MaxResourceBytes:
		return fmt.Errorf("body larger than %d bytes", l.cfg.MaxResourceBytes)
	case resp.StatusCode >= 400:
		return fmt.Errorf("%w %d", errStatus, resp.StatusCode)
	}
	return nil
}

// redirects reports whether a status sends the browser elsewhere.
func redirects(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// ErrRedirect is wrapped by the error of a load whose document redirects:
// the load time of a page is that of the URL that serves it.
var ErrRedirect = errors.New("the document redirects")

// redirected follows a sub-resource's redirect as a browser does: the
// target is a new request of the same kind (a new entry of the load,
// subject to the same limits), and the redirect itself completed. A
// redirecting document fails the load instead.
func (l *loader) redirected(r *request, resp *http.Response) error {
	loc := resp.Header.Get("Location")
	if r.ref.Kind == KindDocument {
		return fmt.Errorf("%w (%d) to %q; load that URL", ErrRedirect, resp.StatusCode, loc)
	}
	u, ok := resolve(resp.Request.URL, loc)
	if !ok {
		return fmt.Errorf("redirect %d to %q: not an http or https URL", resp.StatusCode, loc)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(Ref{URL: u, Kind: r.ref.Kind}, r)
	return nil
}

// discover reads a document or stylesheet for the resources it names,
// decoding gzip or br content.
func (l *loader) discover(r *request, resp *http.Response, body io.Reader) error {
	dec, err := decoded(body, resp.Header.Get("Content-Encoding"))
	if err != nil {
		return err
	}
	if r.ref.Kind == KindDocument {
		facts, sheets, err := ScanHTML(dec, resp.Request.URL, l.cfg.MaxParseBytes, l.emit(r))
		l.discovered(r, facts, sheets)
		return err
	}
	data, err := io.ReadAll(io.LimitReader(dec, l.cfg.MaxParseBytes+1))
	if err != nil {
		return fmt.Errorf("reading the stylesheet: %w", err)
	}
	if int64(len(data)) > l.cfg.MaxParseBytes {
		return fmt.Errorf("stylesheet: %w (%d bytes)", ErrTooLarge, l.cfg.MaxParseBytes)
	}
	l.discovered(r, nil, []Sheet{ParseCSS(data, resp.Request.URL)})
	return nil
}

// decoded undoes the content coding a browser asked for.
func decoded(body io.Reader, coding string) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(coding)) {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("decoding gzip: %w", err)
		}
		return zr, nil
	case "br":
		return brotli.NewReader(body), nil
	}
	return nil, errors.New("content coding " + coding + " was not asked for")
}
