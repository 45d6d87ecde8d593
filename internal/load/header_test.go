package load

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
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
	s := lab.StartTestServer(t, lab.Config{Handler: seen})
	tests := []struct {
		name string
		cfg  Config
	}{
		{"h1", Config{Protocol: HTTP1}},
		{"h2 fast", Config{Protocol: HTTP2}},
		{"h2 net/http", Config{Protocol: HTTP2, Rate: 500}},
		{"h3", Config{Protocol: HTTP3}},
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

// TestLongResponseHeader checks that the HTTP/1.1 client reads a
// response with a header line longer than a small read buffer (10 KiB,
// as a long Content-Security-Policy or Set-Cookie makes), up to the
// parser's limit, and refuses one beyond it.
func TestLongResponseHeader(t *testing.T) {
	tests := []struct {
		size     int
		wantErrs int64
	}{{10 << 10, 0}, {60 << 10, 0}, {maxHeaderBytes + 1, 5}}
	for _, tt := range tests {
		value := strings.Repeat("a", tt.size)
		s := lab.StartTestServer(t, lab.Config{NoHTTP3: true, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Long", value)
			_, _ = w.Write([]byte("hello"))
		})})
		res, err := Run(context.Background(), Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, Conns: 1, Requests: 5,
			TLS: clientTLS(t, s.CA.CertPEM)})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if res.Errors != tt.wantErrs || res.Requests+res.Errors != 5 {
			t.Errorf("header line of %d bytes: %d requests, %d errors %v; want %d errors of 5", tt.size, res.Requests, res.Errors, res.ErrorCounts, tt.wantErrs)
		}
	}
}
