//go:build !race

// These tests start and restart private nginx instances: heavy
// integration tests that scripts/test.sh runs once, in its pass without
// the race detector.

package page

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestNginx loads the test site from nginx (Debian's): HTTP/1.1 uses
// exactly six connections and HTTP/2 one, counted in nginx's access log,
// every response over the protocol asked for; the styled page's
// discovery finds what a browser fetches, as from the embedded server.
func TestNginx(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	if err := lab.WriteSite(filepath.Join(n.Dir, "www")); err != nil {
		t.Fatal(err)
	}
	trust := transport.TLS{Trust: transport.Trust{RootCAs: n.CA.Pool()}}
	logged := 0
	for _, tt := range []struct {
		proto Protocol
		conns int
		http  string
	}{{HTTP1, 6, "HTTP/1.1"}, {HTTP2, 1, "HTTP/2.0"}} {
		ld := load(t, Config{URL: n.HTTPSURL + "/page/images.html", Protocol: tt.proto, TLS: trust})
		entries, err := labtest.WaitAccessLog(context.Background(), n, logged+361)
		if err != nil {
			t.Fatal(err)
		}
		conns := map[int]bool{}
		for _, e := range entries[logged:] {
			conns[e.Conn] = true
			if e.HTTPProtocol != tt.http || e.Status != 200 {
				t.Errorf("%s: nginx logged %s %d for %s; want %s 200", tt.proto, e.HTTPProtocol, e.Status, e.URI, tt.http)
				break
			}
		}
		logged = len(entries)
		if len(conns) != tt.conns || len(ld.Conns) != tt.conns || len(ld.Requests) != 361 || ld.Failed != 0 {
			t.Errorf("%s: nginx saw %d connections, the load %d, %d requests, %d failed; want %d, %d, 361, 0",
				tt.proto, len(conns), len(ld.Conns), len(ld.Requests), ld.Failed, tt.conns, tt.conns)
		}
	}
	ld := load(t, Config{URL: n.HTTPSURL + "/page/styled.html", Protocol: HTTP2, TLS: trust})
	want := append([]string{"/page/styled.html"}, lab.StyledPageFetched[1:]...)
	got := paths(t, ld)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) || ld.Failed != 0 {
		t.Errorf("styled page from nginx: %s, %d failed; want %s", strings.Join(got, " "), ld.Failed, strings.Join(want, " "))
	}
}
