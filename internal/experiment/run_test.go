//go:build !race

// These tests start and restart private nginx instances: heavy
// integration tests that scripts/test.sh runs once, in its pass without
// the race detector.

package experiment

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// setup is a template nginx.conf in its own directory, with a
// CA-signed certificate named by relative paths, and the TLS settings
// that trust it.
type setup struct {
	dir  string
	port int
	tls  *tls.Config
}

// newSetup writes conf (a format string given the served port and a
// second free port) with its certificate.
func newSetup(t *testing.T, conf string) setup {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		t.Fatal("nginx not installed: the tests need it (scripts/test.sh installs it)")
	}
	s := setup{dir: t.TempDir(), port: labtest.FreePort(t, "tcp")}
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Issue(lab.ECDSAP256, lab.DefaultHosts...)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"cert.pem": leaf.CertPEM, "key.pem": leaf.KeyPEM,
		"nginx.conf": fmt.Appendf(nil, conf, s.port, labtest.FreePort(t, "tcp"))}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	s.tls = &tls.Config{RootCAs: roots}
	return s
}

// config is an experiment of the given varies on the setup, measured by
// a short bench with resumed connections.
func (s setup) config(t *testing.T, blocks int, varies ...string) Config {
	t.Helper()
	conf, err := os.ReadFile(filepath.Join(s.dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var vs []Vary
	for _, v := range varies {
		vary, err := ParseVary(v)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, vary)
	}
	variants, err := Variants(NginxTemplate(conf), vs, false)
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://localhost:%d/", s.port)
	bench := load.Config{Targets: []load.Target{{URL: url}}, Conns: 2, Requests: 40, Mode: transport.Resumed,
		TLS: transport.TLS{Trust: transport.Trust{RootCAs: s.tls.RootCAs}}}
	return Config{Variants: variants, Nginx: lab.NginxFileConfig{ConfDir: s.dir}, Target: Target{URL: url, TLS: s.tls},
		Measure: Bench{Config: bench}, Blocks: blocks, Seed: 1}
}

const oneServer = `events { worker_connections 256; }
http {
    access_log off;
    server {
        listen 127.0.0.1:%d ssl;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "ok"; }
    }
    # the second port: %d
}
`

// TestRunBadVariant checks that a variant nginx refuses is reported with
// nginx's own message while the others are verified and measured.
func TestRunBadVariant(t *testing.T) {
	s := newSetup(t, oneServer)
	r, err := Run(context.Background(), s.config(t, 3, "ssl_session_tickets=off|on|maybe"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status   Status
		evidence string
	}{
		{Base, "the reference"},
		{Verified, "resumed: no → yes"},
		{Failed, `invalid value "maybe" in "ssl_session_tickets" directive, it must be "on" or "off" in nginx.conf:`},
	}
	for i, w := range want {
		v := r.Variants[i]
		if v.Status != w.status || !strings.Contains(v.Evidence, w.evidence) {
			t.Errorf("variant %s: %s, %q; want %s, %q", v.Name, v.Status, v.Evidence, w.status, w.evidence)
		}
	}
	if len(r.Order) != 3 || len(r.CompleteBlocks()) != 3 {
		t.Fatalf("%d blocks run, %d complete; want 3 and 3 (errors: %q, %q)", len(r.Order), len(r.CompleteBlocks()),
			r.Variants[0].BlockErrors, r.Variants[1].BlockErrors)
	}
	for _, order := range r.Order {
		if len(order) != 2 {
			t.Errorf("block order %v; want the two live variants", order)
		}
	}
	// The server's CPU comes from the scheduler's accounting in
	// nanoseconds: 40 handshakes, well under one 10 ms tick of /proc's
	// stat, still show.
	on := r.Variants[1].Samples[0]
	if cpu := on.Values["server CPU/request"]; on.Requests != 40 || on.Errors != 0 || !(cpu > 10 && cpu < 100000) {
		t.Errorf("tickets-on sample %+v; want 40 requests, no errors, server CPU between 10 µs and 100 ms per request", on)
	}
	// bench --conn resume says in every block how many handshakes
	// resumed: none with tickets off, all but the connections' first
	// with tickets on.
	if m := (Bench{Config: load.Config{Mode: transport.Resumed}}).Metrics(); !slices.Contains(m, resumedMetric) {
		t.Errorf("metrics under --conn resume %v; want %q", m, resumedMetric.Name)
	}
	if m := (Bench{}).Metrics(); slices.Contains(m, resumedMetric) {
		t.Errorf("metrics on kept-alive connections %v; want no %q", m, resumedMetric.Name)
	}
	for b := range 3 {
		off, on := r.Variants[0].Samples[b].Values, r.Variants[1].Samples[b].Values
		if got, ok := off[resumedMetric.Name]; !ok || got != 0 {
			t.Errorf("block %d, tickets off: resumed handshakes %v (present %v); want 0%%", b+1, got, ok)
		}
		if got := on[resumedMetric.Name]; got < 80 || got >= 100 {
			t.Errorf("block %d, tickets on: resumed handshakes %v%%; want all but the first of 40 connections", b+1, got)
		}
	}
}

// TestRunBufferSizeVerified checks that ssl_buffer_size, which only the
// TLS records of a large response show, is verified by their length: 16
// KiB of a 100 KB file and its overhead in the baseline, 1460 bytes and
// theirs in the variant.
func TestRunBufferSizeVerified(t *testing.T) {
	s := newSetup(t, `events { worker_connections 256; }
http {
    access_log off;
    server {
        listen 127.0.0.1:%d ssl;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        ssl_protocols TLSv1.3;
        location / { root www; }
    }
    # the second port: %d
}
`)
	// nginx's workers read the file as an unprivileged user.
	for _, dir := range []string{filepath.Dir(s.dir), s.dir} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(s.dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "www", "index.html"), make([]byte, 100_000), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := s.config(t, 1, "ssl_buffer_size=16k|1460")
	r := &Result{Variants: make([]VariantResult, 2)}
	if err := preflight(context.Background(), cfg, r); err != nil {
		t.Fatal(err)
	}
	v := r.Variants[1]
	// TLS 1.3 adds 17 bytes to a record: its content type and the AEAD's
	// tag.
	if want := "tls record size: 16401 B → 1477 B"; v.Status != Verified || v.Evidence != want {
		t.Errorf("variant %s: %s, %q; want verified, %q (observed %v)", v.Name, v.Status, v.Evidence, want, v.Observation)
	}
}

// TestRunNotLive checks that a directive that lands in a server block
// other than the one measured is caught by verification and not measured.
func TestRunNotLive(t *testing.T) {
	s := newSetup(t, `events { worker_connections 256; }
http {
    access_log off;
    ssl_certificate cert.pem;
    ssl_certificate_key key.pem;
    server { listen 127.0.0.1:%d ssl; location / { return 200 "ok"; } }
    server { listen 127.0.0.1:%d ssl; ssl_session_tickets off; }
}
`)
	r, err := Run(context.Background(), s.config(t, 1, "ssl_session_tickets=off|on"))
	if err != nil {
		t.Fatal(err)
	}
	v := r.Variants[1]
	if v.Status != NotLive || !strings.Contains(v.Evidence, "resumed: yes, as in the baseline") {
		t.Errorf("variant %s: %s, %q; want not live, resumed as in the baseline", v.Name, v.Status, v.Evidence)
	}
	if v.Samples[0] != nil || len(r.Order[0]) != 1 {
		t.Errorf("a variant that is not live was measured: order %v", r.Order)
	}
}

// TestRunSeedDirectives runs directives a study sets all at once, each
// absent from the baseline (the template as it is): a session cache,
// which tickets hide from every fact but resumption by session ID; an
// HTTP/2 setting nginx announces; a directive nginx 1.22 calls obsolete
// and one it calls deprecated. The variant of them all together is
// judged on the live ones and measured.
func TestRunSeedDirectives(t *testing.T) {
	s := newSetup(t, `events { worker_connections 256; }
http {
    access_log off;
    server {
        listen 127.0.0.1:%d ssl http2;
        ssl_certificate cert.pem;
        ssl_certificate_key key.pem;
        location / { return 200 "ok"; }
    }
    # the second port: %d
}
`)
	cfg := s.config(t, 1, "ssl_session_cache=|shared:lab:1m", "http2_max_concurrent_streams=|64", "http2_idle_timeout=|30s", "ssl=|on")
	template, err := os.ReadFile(filepath.Join(s.dir, "nginx.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if string(cfg.Variants[0].Config) != string(template) {
		t.Fatalf("baseline config:\n%s\nwant the template as it is", cfg.Variants[0].Config)
	}
	all, err := Variants(NginxTemplate(template), []Vary{{"ssl_session_cache", []string{"", "shared:lab:1m"}},
		{"http2_max_concurrent_streams", []string{"", "64"}}, {"http2_idle_timeout", []string{"", "30s"}}, {"ssl", []string{"", "on"}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Variants = all
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		status   Status
		evidence string
	}{
		{Base, "the reference"},
		{Verified, "resumed by session ID: no → yes"},
		{Verified, "h2 MAX_CONCURRENT_STREAMS: 128 → 64"},
		{Obsolete, `the "http2_idle_timeout" directive is obsolete, use the "keepalive_timeout" directive instead in nginx.conf:`},
		{Unverified, `not observable from a client; nginx: [warn] the "ssl" directive is deprecated`},
		{Verified, "resumed by session ID: no → yes; h2 MAX_CONCURRENT_STREAMS: 128 → 64; resumed: yes, as in the baseline; obsolete, ignored by nginx: http2_idle_timeout"},
	}
	for i, w := range want {
		v := r.Variants[i]
		if v.Status != w.status || !strings.Contains(v.Evidence, w.evidence) {
			t.Errorf("variant %s: %s, %q; want %s, %q", v.Name, v.Status, v.Evidence, w.status, w.evidence)
		}
	}
	if all := r.Variants[5]; !strings.HasPrefix(all.Name, "all at once (") || len(all.Samples) != 1 || all.Samples[0] == nil {
		t.Errorf("variant %q samples %v (%q); want all at once, measured", all.Name, all.Samples, all.BlockErrors)
	}
}

// TestRunNull runs two variants that nginx reads as the same setting
// (keepalive_timeout 60s and 1m): no verdict may be significant. At
// alpha 0.01 over 12 blocks a significant verdict is still reachable
// (Holm's first step: 6 · 2/4096 = 0.003), and the chance of a false one
// is at most 1%.
func TestRunNull(t *testing.T) {
	s := newSetup(t, oneServer)
	cfg := s.config(t, 12, "keepalive_timeout=60s|1m")
	cfg.Alpha = 0.01
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Analysis
	if r.Variants[1].Status != Unverified || a.Blocks != 12 || !a.Reachable || a.Family < 4 {
		t.Fatalf("status %s, %d blocks, reachable %v, family %d; want unverified, 12, true, at least 4 metrics",
			r.Variants[1].Status, a.Blocks, a.Reachable, a.Family)
	}
	for _, v := range a.Verdicts {
		if v.Significant {
			t.Errorf("%s: shift %.4g (p %.4f, Holm %.4f) significant between identical variants", v.Metric, v.Shift, v.P, v.PHolm)
		}
	}
}

// TestRestartStartsEmpty checks that each run starts a new nginx, not a
// reloaded one: a session resumed on one instance (from the shared cache
// or a ticket) cannot be resumed on the next, whose cache is empty and
// whose ticket keys are new.
func TestRestartStartsEmpty(t *testing.T) {
	s := newSetup(t, oneServer)
	cfg := s.config(t, 1, "ssl_session_cache=shared:lab:1m|off")
	client := s.tls.Clone()
	client.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	resumed := func() bool {
		c, err := tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), withName(client))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// TLS 1.3 tickets arrive after the handshake: read the answer.
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
		_, _ = io.ReadAll(c)
		return c.ConnectionState().DidResume
	}
	r := &Result{}
	var got []bool
	for range 2 {
		err := withInstance(context.Background(), cfg, r, 0, func(instance) error {
			got = append(got, resumed(), resumed())
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if want := []bool{false, true, false, true}; !slices.Equal(got, want) {
		t.Errorf("resumed per connection, two per instance = %v; want %v (the second instance resumes nothing of the first)", got, want)
	}
}

func withName(c *tls.Config) *tls.Config {
	c.ServerName = "localhost"
	return c
}

// TestRunMaxTime checks that --max-time stops before a block that would
// end past it: here the check of the variants alone takes longer.
func TestRunMaxTime(t *testing.T) {
	s := newSetup(t, oneServer)
	cfg := s.config(t, 5, "ssl_session_tickets=off|on")
	cfg.MaxTime = time.Millisecond
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stopped != "max-time" || len(r.Order) != 0 || r.Variants[1].Status != Verified {
		t.Errorf("stopped %q after %d blocks, variant %s; want max-time, 0 blocks, the variants checked", r.Stopped, len(r.Order), r.Variants[1].Status)
	}
}

// TestRunHandshakeRefused checks that a variant whose server fails every
// handshake (a certificate with another certificate's key) is reported at
// once, not after waiting for an answer.
func TestRunHandshakeRefused(t *testing.T) {
	s := newSetup(t, oneServer)
	ca, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	// An RSA certificate with the template's ECDSA key passes nginx -t
	// (OpenSSL keeps a key per type) and fails every handshake.
	other, err := ca.Issue(lab.RSA2048, "localhost")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "other.pem"), other.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := Run(context.Background(), s.config(t, 1, "ssl_certificate=cert.pem|other.pem"))
	if err != nil {
		t.Fatal(err)
	}
	v := r.Variants[1]
	if v.Status != Failed || !strings.Contains(v.Evidence, "failed the TLS handshake") || time.Since(start) > answerWait {
		t.Errorf("variant %s: %s, %q after %v; want failed at once, the handshake named", v.Name, v.Status, v.Evidence, time.Since(start))
	}
}

// affinityProbe is bench's measurement that also reads, while it runs,
// the CPUs every thread of this process may use.
type affinityProbe struct {
	Bench
	seen *[]string
}

func (a affinityProbe) Run(ctx context.Context, pids []int) (Sample, error) {
	*a.seen = append(*a.seen, threadCPUs()...)
	return a.Bench.Run(ctx, pids)
}

// threadCPUs returns each thread's Cpus_allowed_list.
func threadCPUs() []string {
	var out []string
	tasks, _ := filepath.Glob("/proc/self/task/*/status")
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				out = append(out, strings.TrimSpace(v))
			}
		}
	}
	return out
}

// TestRunPinned checks that --client-cpus holds every thread of the
// client on its CPUs during the runs and gives them back after.
func TestRunPinned(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("pinning apart needs two CPUs")
	}
	s := newSetup(t, oneServer)
	cfg := s.config(t, 1, "ssl_session_tickets=off|on")
	cfg.ClientCPUs, cfg.Nginx.CPUs = "0", "1"
	var seen []string
	cfg.Measure = affinityProbe{Bench: cfg.Measure.(Bench), seen: &seen}
	before := threadCPUs()
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || slices.ContainsFunc(seen, func(c string) bool { return c != "0" }) {
		t.Errorf("threads' CPUs during the runs: %q; want all 0", seen)
	}
	if after := threadCPUs(); after[0] != before[0] {
		t.Errorf("main thread's CPUs after the experiment: %s; want %s back", after[0], before[0])
	}
	if r.Env.Pinning != "server on CPUs 1, client on CPUs 0" || len(r.CompleteBlocks()) != 1 {
		t.Errorf("pinning %q, %d complete blocks; want both named and 1 block", r.Env.Pinning, len(r.CompleteBlocks()))
	}
}
