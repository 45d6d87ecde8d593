package load

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// seenRequests counts the Host and X-Lab values a server received.
type seenRequests struct {
	mu    sync.Mutex
	hosts map[string]int
	xlab  map[string]int
}

func (s *seenRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hosts[r.Host]++
	s.xlab[r.Header.Get("X-Lab")]++
	s.mu.Unlock()
	_, _ = w.Write([]byte("hello"))
}

func (s *seenRequests) take() (hosts, xlab map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hosts, xlab = s.hosts, s.xlab
	s.hosts, s.xlab = map[string]int{}, map[string]int{}
	return hosts, xlab
}

// TestHostHeader checks that a Host header given by the user names the
// host on every protocol and client path (the HTTP/1.1 Host line, the
// fast HTTP/2 client's :authority, net/http's and quic-go's req.Host),
// and that the other headers reach the server.
func TestHostHeader(t *testing.T) {
	seen := &seenRequests{}
	seen.take()
	s := labtest.StartServer(t, lab.Config{Handler: seen})
	tests := []struct {
		name string
		cfg  Config
	}{
		{"h1", Config{Protocol: transport.HTTP1}},
		{"h2 fast", Config{Protocol: transport.HTTP2}},
		{"h2 net/http", Config{Protocol: transport.HTTP2, libraryH2: true}},
		{"h3", Config{Protocol: transport.HTTP3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			header := http.Header{"host": {"vhost.test"}, "X-Lab": {"yes"}}
			cfg.Targets = []Target{{URL: s.HTTPSURL + "/", Header: header}}
			cfg.Conns, cfg.Requests, cfg.TLS, cfg.Timeout = 2, 20, clientTLS(t, s.CA.CertPEM), 5*time.Second
			res := mustRun(t, cfg)
			hosts, xlab := seen.take()
			if diff := cmp.Diff(map[string]int{"vhost.test": 20}, hosts); diff != "" || res.Requests != 20 {
				t.Errorf("server saw hosts (-want +got):\n%s client counted %d; want 20", diff, res.Requests)
			}
			if diff := cmp.Diff(map[string]int{"yes": 20}, xlab); diff != "" {
				t.Errorf("server saw X-Lab (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLongResponseHeader checks the response header limit on every
// protocol and client path: a header line longer than the HTTP/1.1
// read buffer (64 KiB) is read up to the limit (1 MiB by default, or
// Config.MaxHeaderBytes), and one beyond it fails each request with a
// HeaderTooLargeError, counted.
func TestLongResponseHeader(t *testing.T) {
	var value atomic.Pointer[string]
	s := labtest.StartServer(t, lab.Config{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Long", *value.Load())
		_, _ = w.Write([]byte("hello"))
	})})
	tests := []struct {
		size  int
		limit int64
		fail  bool
	}{
		{size: 10 << 10}, {size: 200 << 10}, {size: 900 << 10},
		{size: 1<<20 + 1, fail: true},
		{size: 10 << 10, limit: 16 << 10}, {size: 20 << 10, limit: 16 << 10, fail: true},
	}
	protocols := []struct {
		name string
		cfg  Config
	}{
		{"h1", Config{Protocol: transport.HTTP1}},
		{"h2 fast", Config{Protocol: transport.HTTP2}},
		{"h2 net/http", Config{Protocol: transport.HTTP2, libraryH2: true}},
		{"h3", Config{Protocol: transport.HTTP3}},
	}
	for _, tt := range tests {
		v := strings.Repeat("a", tt.size)
		value.Store(&v)
		for _, p := range protocols {
			cfg := p.cfg
			cfg.Targets = []Target{{URL: s.HTTPSURL + "/"}}
			cfg.Conns, cfg.Requests, cfg.MaxHeaderBytes, cfg.TLS = 1, 3, tt.limit, clientTLS(t, s.CA.CertPEM)
			res, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			var large *HeaderTooLargeError
			if cfg.MaxHeaderBytes == 0 {
				cfg.MaxHeaderBytes = transport.MaxHeaderBytes
			}
			for _, err := range res.ErrorSamples {
				if !errors.As(err, &large) && !strings.Contains(err.Error(), "over the limit of "+sizeName(cfg.MaxHeaderBytes)) {
					t.Errorf("%s, %d-byte header, limit %d: error %v; want a HeaderTooLargeError", p.name, tt.size, tt.limit, err)
				}
			}
			if tt.fail && res.Errors != 3 || !tt.fail && res.Requests != 3 {
				t.Errorf("%s, %d-byte header, limit %d: %d requests, %d errors %v; want %d failed of 3",
					p.name, tt.size, tt.limit, res.Requests, res.Errors, res.ErrorCounts, map[bool]int{true: 3}[tt.fail])
			}
		}
	}
}
