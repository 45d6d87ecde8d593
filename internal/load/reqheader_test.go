package load

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// headerCapture keeps the header of the last request a server received.
type headerCapture struct {
	mu     sync.Mutex
	header http.Header
	host   string
}

func (c *headerCapture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.header, c.host = r.Header.Clone(), r.Host
	c.mu.Unlock()
	_, _ = w.Write([]byte("ok"))
}

func (c *headerCapture) take() (http.Header, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, host := c.header, c.host
	c.header, c.host = nil, ""
	return h, host
}

// TestSameHeadersEveryProtocol captures, at the embedded server, the
// request header that each protocol and client sends for the same
// target: all must be the same. HTTP/1.1 sent Accept: */* and HTTP/2 and
// HTTP/3 did not, and net/http and quic-go added Accept-Encoding: gzip.
// The result names the client that ran.
func TestSameHeadersEveryProtocol(t *testing.T) {
	capture := &headerCapture{}
	s := labtest.StartServer(t, lab.Config{Handler: capture})
	targets := []struct {
		name   string
		target Target
		want   http.Header
	}{
		{"defaults", Target{}, http.Header{"Accept": {"*/*"}, "User-Agent": {"httpslab"}}},
		{"user fields", Target{Header: http.Header{"X-Lab": {"1", "2"}, "Accept": {"text/html"}, "User-Agent": {},
			"Connection": {"keep-alive"}, "Transfer-Encoding": {"chunked"}, "Host": {"vhost.test"}}},
			http.Header{"Accept": {"text/html"}, "X-Lab": {"1", "2"}}},
		{"body", Target{Body: []byte("abc"), Header: http.Header{"Content-Type": {"text/plain"}}},
			http.Header{"Accept": {"*/*"}, "User-Agent": {"httpslab"}, "Content-Type": {"text/plain"}, "Content-Length": {"3"}}},
	}
	protocols := []struct {
		name   string
		cfg    Config
		client string
	}{
		{"HTTP/1.1", Config{Protocol: transport.HTTP1}, ClientH1},
		{"HTTP/2 fast", Config{Protocol: transport.HTTP2}, ClientH2},
		{"HTTP/2 fast, open model", Config{Protocol: transport.HTTP2, Rate: 100}, ClientH2},
		{"HTTP/2 net/http", Config{Protocol: transport.HTTP2, libraryH2: true}, ClientNetH2},
		{"HTTP/3", Config{Protocol: transport.HTTP3}, ClientQUICH3},
	}
	for _, tt := range targets {
		wantHost := "127.0.0.1"
		if h := tt.target.Header["Host"]; h != nil {
			wantHost = h[0]
		}
		for _, p := range protocols {
			cfg := p.cfg
			target := tt.target
			target.URL = s.HTTPSURL + "/"
			cfg.Targets, cfg.Requests, cfg.TLS, cfg.Timeout = []Target{target}, 1, clientTLS(t, s.CA.CertPEM), 5*time.Second
			res := mustRun(t, cfg)
			if res.Client != p.client {
				t.Errorf("%s over %s: client %q; want %q", tt.name, p.name, res.Client, p.client)
			}
			got, host := capture.take()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s over %s: the server received (-want +got):\n%s", tt.name, p.name, diff)
			}
			if hostname, _, _ := cutPort(host); hostname != wantHost {
				t.Errorf("%s over %s: host %q; want %q", tt.name, p.name, host, wantHost)
			}
		}
	}
}

// cutPort splits host:port, leaving a host without a port whole.
func cutPort(hostport string) (host, port string, ok bool) {
	for i := len(hostport) - 1; i >= 0; i-- {
		if hostport[i] == ':' {
			return hostport[:i], hostport[i+1:], true
		}
		if hostport[i] < '0' || hostport[i] > '9' {
			break
		}
	}
	return hostport, "", false
}
