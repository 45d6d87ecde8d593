package load

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/httpslab/httpslab/internal/transport"
)

// hello is what a server saw of one connection's ClientHello.
type hello struct {
	groups  []tls.CurveID
	retried bool // the server sent a HelloRetryRequest
}

// groupServer is an HTTPS server that accepts only groups and records the
// first ClientHello of each connection (one request per connection) and
// whether it asked for another group.
func groupServer(t *testing.T, groups ...tls.CurveID) (string, func() []hello) {
	t.Helper()
	var mu sync.Mutex
	var hellos []hello
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hellos[len(hellos)-1].retried = r.TLS.HelloRetryRequest
		mu.Unlock()
	}))
	srv.TLS = &tls.Config{CurvePreferences: groups, GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		mu.Lock()
		hellos = append(hellos, hello{groups: slices.Clone(h.SupportedCurves)})
		mu.Unlock()
		return nil, nil
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL, func() []hello {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(hellos)
	}
}

func runFresh(t *testing.T, url string, firstVisit bool, n int64) *Result {
	t.Helper()
	res, err := Run(context.Background(), Config{Targets: []Target{{URL: url}}, Mode: transport.Fresh, Requests: n,
		TLS: transport.TLS{Trust: transport.Trust{Insecure: true}}, FirstVisit: firstVisit})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors > 0 || res.Handshakes != n {
		t.Fatalf("%d handshakes, %d errors %v; want %d and none", res.Handshakes, res.Errors, res.ErrorCounts, n)
	}
	return res
}

// Against a server without ML-KEM (nginx on OpenSSL 3.0), the first
// handshake offers Go's defaults and every later one the server's group
// first, with no hybrid before it.
func TestKeySharesLearned(t *testing.T) {
	url, hellos := groupServer(t, tls.X25519, tls.CurveP256)
	res := runFresh(t, url, false, 5)
	def := transport.OfferedGroups(nil)
	k := res.KeyShares
	if k.Learned != tls.X25519 || !slices.Equal(k.LearnedShares, []tls.CurveID{tls.X25519}) || k.HelloRetries != 0 {
		t.Fatalf("KeyShares = %+v, want x25519 learned and alone, no HelloRetryRequest", k)
	}
	if !slices.Equal(k.Offered, def) {
		t.Errorf("first offered %v, want Go's defaults %v", k.Offered, def)
	}
	hs := hellos()
	if len(hs) != 5 || !slices.Equal(hs[0].groups, def) {
		t.Fatalf("server saw %+v; want 5 hellos, the first offering %v", hs, def)
	}
	for i, h := range hs[1:] {
		if !slices.Equal(h.groups, k.LearnedOffered) || h.groups[0] != tls.X25519 {
			t.Errorf("hello %d offered %v, want %v", i+2, h.groups, k.LearnedOffered)
		}
	}
}

// A server that accepts only P-256 answers Go's default shares with a
// HelloRetryRequest: once, when the group is learned; on every handshake
// with FirstVisit.
func TestKeySharesHelloRetry(t *testing.T) {
	url, hellos := groupServer(t, tls.CurveP256)
	res := runFresh(t, url, false, 4)
	if k := res.KeyShares; k.Learned != tls.CurveP256 || k.HelloRetries != 1 || k.FirstVisit {
		t.Errorf("learning: KeyShares = %+v, want secp256r1 learned after 1 HelloRetryRequest", k)
	}
	if n := retried(hellos()); n != 1 {
		t.Errorf("the server sent %d HelloRetryRequests, want 1", n)
	}

	url, hellos = groupServer(t, tls.CurveP256)
	res = runFresh(t, url, true, 4)
	if k := res.KeyShares; k.Learned != 0 || k.HelloRetries != 4 || !k.FirstVisit {
		t.Errorf("first visit: KeyShares = %+v, want nothing learned and 4 HelloRetryRequests", k)
	}
	if n := retried(hellos()); n != 4 {
		t.Errorf("the server sent %d HelloRetryRequests, want 4", n)
	}
	if got := res.TLS; len(got) != 1 || got[0].Curve != tls.CurveP256 || got[0].Full != 4 {
		t.Errorf("TLS = %+v, want 4 full handshakes on secp256r1", got)
	}
}

func retried(hs []hello) int {
	n := 0
	for _, h := range hs {
		if h.retried {
			n++
		}
	}
	return n
}
