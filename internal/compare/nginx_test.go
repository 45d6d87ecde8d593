package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestDefaultMatrixOnNginx runs the default matrix against a real nginx
// (Debian's 1.22: no HTTP/3) and checks each variant's claim from the
// server's side, in nginx's access log: resumed variants resumed there,
// full ones did not, kept-alive ones stayed on one connection. The
// HTTP/3 variants must be dropped in the warm-up with their error.
func TestDefaultMatrixOnNginx(t *testing.T) {
	ngx := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := ngx.CA.WriteFile(ca); err != nil {
		t.Fatal(err)
	}
	keys := DefaultMatrix()
	var vs []Variant
	for i, k := range keys {
		q := fmt.Sprintf("/1k.bin?v=%d", i)
		target := Target{URL: ngx.HTTPSURL + q, HTTPURL: ngx.HTTPURL + q,
			Probe: probe.Config{TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}, Timeout: 2 * time.Second}}
		v, closeAll, err := target.Variants([]Key{k})
		if err != nil {
			t.Fatal(err)
		}
		defer closeAll()
		vs = append(vs, v...)
	}
	const runs = 5
	res, err := Run(context.Background(), Config{Variants: vs, Runs: runs, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	want := 0 // requests nginx will log: warm-up, priming and measured runs
	for _, k := range keys {
		if k.Proto != transport.HTTP3 {
			want += 1 + runs
			if k.Mode() != transport.Fresh {
				want++
			}
		}
	}
	log, err := labtest.WaitAccessLog(context.Background(), ngx, want)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != want {
		t.Errorf("nginx logged %d requests; want %d (warm-up, priming and %d runs per variant)", len(log), want, runs)
	}
	for i, v := range res.Variants {
		if v.Key.Proto == transport.HTTP3 {
			if !strings.Contains(v.Dropped, "warm-up") || v.Total.N != 0 {
				t.Errorf("%s on nginx without HTTP/3: dropped %q, n=%d; want dropped in the warm-up", v.Name, v.Dropped, v.Total.N)
			}
			continue
		}
		if v.Dropped != "" || v.Total.N != runs {
			t.Errorf("%s: n=%d dropped %q errors %v; want %d samples", v.Name, v.Total.N, v.Dropped, v.Errors, runs)
		}
		checkServerSide(t, v, entriesFor(log, i))
	}
}

func entriesFor(log []lab.AccessEntry, i int) []lab.AccessEntry {
	var out []lab.AccessEntry
	for _, e := range log {
		if strings.HasSuffix(e.URI, fmt.Sprintf("?v=%d", i)) {
			out = append(out, e)
		}
	}
	return out
}

// checkServerSide checks a variant's access log entries: the priming
// request (for resumption and keep-alive) and the warm-up are in the log
// too, so the counts are at least the measured runs.
func checkServerSide(t *testing.T, v VariantResult, es []lab.AccessEntry) {
	t.Helper()
	reused, conns := 0, map[int]bool{}
	for _, e := range es {
		if e.Reused {
			reused++
		}
		conns[e.Conn] = true
	}
	n := len(es)
	switch {
	case n < v.Total.N:
		t.Errorf("%s: %d requests in nginx's log; want at least %d", v.Name, n, v.Total.N)
	case v.Key.Conn == "reuse" && len(conns) != 1:
		t.Errorf("%s: %d requests on %d connections; want one kept-alive connection", v.Name, n, len(conns))
	case v.Key.Conn == "fresh" && len(conns) != n:
		t.Errorf("%s: %d requests on %d connections; want a new one each", v.Name, n, len(conns))
	case v.Key.Handshake == "resumed" && reused != n-1:
		t.Errorf("%s: nginx resumed %d of %d handshakes; want all but the first", v.Name, reused, n)
	case v.Key.Handshake == "full" && v.Key.Conn == "fresh" && reused != 0:
		t.Errorf("%s: nginx resumed %d handshakes; want none", v.Name, reused)
	}
}

// TestResumptionBySessionIDOnly: nginx with a session cache and tickets
// off resumes TLS 1.2 by session ID (as openssl s_time -reuse shows),
// which Go's client does not do: the resumed variant is dropped with a
// reason that says so, not one that blames the server's cache.
func TestResumptionBySessionIDOnly(t *testing.T) {
	ngx := labtest.StartNginx(t, lab.NginxConfig{NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2; ssl_session_cache shared:lab:1m; ssl_session_tickets off;"})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := ngx.CA.WriteFile(ca); err != nil {
		t.Fatal(err)
	}
	full := base.with(DimTLS, "1.2")
	target := Target{URL: ngx.HTTPSURL + "/1k.bin", Probe: probe.Config{TLS: transport.TLS{Trust: transport.Trust{CAFile: ca}}, Timeout: 5 * time.Second}}
	vs, closeAll, err := target.Variants([]Key{full, full.with(DimHandshake, "resumed")})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	res, err := Run(context.Background(), Config{Variants: vs, Runs: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Variants[1].Dropped; !strings.Contains(got, "failed in the warm-up: the server did not resume the TLS 1.2 session: httpslab resumes TLS 1.2 with session tickets only") {
		t.Errorf("resumed variant on nginx without tickets: dropped %q; want the session-ID reason", got)
	}
	if res.Variants[0].Total.N != 3 {
		t.Errorf("full handshakes: n=%d; want 3", res.Variants[0].Total.N)
	}
}
