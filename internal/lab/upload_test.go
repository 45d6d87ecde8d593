package lab_test

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// countingReader counts the bytes a client's transport took from a body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestUploadReadInFull: every endpoint reads the whole request body before
// it answers, so a client sends an upload to its last byte over HTTP/1.1,
// HTTP/2 and HTTP/3 (the server answered first and the client stopped
// sending after the first few hundred KiB), and /headers reports the size
// received.
func TestUploadReadInFull(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	// A tls.Config each: a transport may set NextProtos on the one it gets.
	tlsConf := func() *tls.Config { return &tls.Config{RootCAs: s.CA.Pool()} }
	clients := map[string]*http.Client{
		"HTTP/1.1": {Transport: &http.Transport{TLSClientConfig: tlsConf()}},
		"HTTP/2":   {Transport: &http.Transport{TLSClientConfig: tlsConf(), ForceAttemptHTTP2: true}},
		"HTTP/3":   {Transport: &http3.Transport{TLSClientConfig: tlsConf()}},
	}
	const size = 4 << 20
	payload := bytes.Repeat([]byte("u"), size)
	for name, c := range clients {
		c.Timeout = 30 * time.Second
		for _, path := range []string{"/headers", "/bytes/10", "/status/201"} {
			body := &countingReader{r: bytes.NewReader(payload)}
			req, err := http.NewRequest(http.MethodPost, s.HTTPSURL+path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = size
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("%s POST %s: %v", name, path, err)
			}
			out, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("%s POST %s: reading the answer: %v", name, path, err)
			}
			if got := body.n.Load(); got != size {
				t.Errorf("%s POST %s: the client sent %d B of the %d B body; want all of it", name, path, got, size)
			}
			if path != "/headers" {
				continue
			}
			var echo struct {
				BodyBytes int64 `json:"body_bytes"`
			}
			if err := json.Unmarshal(out, &echo); err != nil || echo.BodyBytes != size {
				t.Errorf("%s POST /headers: body_bytes = %d (%v); want %d", name, echo.BodyBytes, err, size)
			}
		}
	}
}
