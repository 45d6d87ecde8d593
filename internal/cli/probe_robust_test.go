package cli

import (
	"context"
	"crypto/tls"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
)

// TestProbeUsageErrors: command lines that are wrong in themselves stop
// with exit code 2 before any request reaches the server.
func TestProbeRejectsBeforeRequest(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{})
	u := srv.HTTPSURL + "/"
	host := strings.TrimPrefix(srv.HTTPSURL, "https://")
	tests := []struct {
		name    string
		args    []string
		wantErr []string
	}{
		{"port out of range", []string{"https://127.0.0.1:99999/"}, []string{`port "99999": want 1 to 65535`}},
		{"port 0", []string{"https://127.0.0.1:0/"}, []string{`port "0": want 1 to 65535`}},
		{"no scheme", []string{host}, []string{"want an http:// or https:// URL", "hint: write the scheme, e.g. https://" + host + "/"}},
		{"empty URL", []string{""}, []string{"the URL is empty"}},
		{"0rtt tls-max 1.2", []string{u, "--cacert", ca, "--0rtt", "--tls-max", "1.2"}, []string{"HTTP/3 runs on TLS 1.3 only"}},
		{"http3 tls-max 1.2", []string{u, "--cacert", ca, "--http3", "--tls-max", "1.2"}, []string{"HTTP/3 runs on TLS 1.3 only"}},
		{"bad method", []string{u, "--cacert", ca, "-X", "GE T"}, []string{`method "GE T" is not an HTTP token`}},
		{"resume over plain HTTP", []string{srv.HTTPURL + "/", "--resume"}, []string{"--resume resumes TLS sessions", "hint: probe the https:// URL"}},
		{"max-redirs -2", []string{u, "--cacert", ca, "-L", "--max-redirs", "-2"}, []string{"--max-redirs -2: want 0 to 1000, or -1"}},
		{"max-redirs huge", []string{u, "--cacert", ca, "-L", "--max-redirs", "5000"}, []string{"--max-redirs 5000"}},
		{"har unwritable", []string{u, "--cacert", ca, "--har", filepath.Join(t.TempDir(), "missing", "run.har")},
			[]string{"--har: open ", "no such file or directory", "hint: give a file in a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := srv.Stats().Requests
			code, _, stderr := run(t, context.Background(), append([]string{"probe"}, tt.args...)...)
			if code != ExitUsage {
				t.Fatalf("probe %q = %d; want %d\nstderr:\n%s", tt.args, code, ExitUsage, stderr)
			}
			for _, w := range append([]string{"httpslab: error: "}, tt.wantErr...) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if got := srv.Stats().Requests - before; got != 0 {
				t.Errorf("the server saw %d requests; want none for a usage error", got)
			}
		})
	}
}

// TestProbeMisbehavingServers: each broken server gives exit code 1, the
// error and a hint that says what the server did.
func TestProbeMisbehavingServers(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	closer, cut, silent := brokenServers(t)
	plainAsTLS := "https://" + strings.TrimPrefix(srv.HTTPURL, "http://") + "/"
	tls12 := labtest.StartServer(t, lab.Config{NoHTTP3: true, MaxVersion: tls.VersionTLS12})
	tests := []struct {
		name    string
		args    []string
		wantErr []string
	}{
		{"closes after ClientHello", []string{"https://" + closer + "/", "-k"}, []string{"EOF", "hint: the server closed the connection without an answer"}},
		{"plain HTTP on https://", []string{plainAsTLS, "-k"}, []string{"does not look like a TLS handshake", "hint: the server did not answer with TLS"}},
		{"closes mid-body", []string{"http://" + cut + "/"}, []string{"unexpected EOF", "hint: the server closed the connection before the end of the response"}},
		{"never answers", []string{"http://" + silent + "/", "--max-time", "0.3"}, []string{"deadline exceeded", "hint: the server did not answer in time"}},
		{"TLS 1.3 to a TLS 1.2 server", []string{tls12.HTTPSURL + "/", "-k", "--tlsv1.3"},
			[]string{"remote error: tls: protocol version not supported", "hint: the server and the client share no TLS version"}},
		{"no shared suite", []string{tls12.HTTPSURL + "/", "-k", "--ciphers", "ECDHE-RSA-AES128-GCM-SHA256"},
			[]string{"remote error: tls: handshake failure", "hint: the server and the client share no TLS version"}},
		{"HTTP/3 to a server without it", []string{srv.HTTPSURL + "/", "--cacert", ca, "--http3"},
			[]string{"connection refused", "hint: nothing listens on this UDP port: the server does not serve HTTP/3 here"}},
		{"-6 with an IPv4 literal", []string{srv.HTTPSURL + "/", "--cacert", ca, "-6"},
			[]string{"no suitable address found", "hint: -4 or -6 leaves no address of this host"}},
		{"max-redirs 0", []string{srv.HTTPSURL + "/redirect/2", "--cacert", ca, "-L", "--max-redirs", "0"},
			[]string{"0 redirects followed", "hint: the server redirects more often than --max-redirs allows"}},
		{"max-redirs 1", []string{srv.HTTPSURL + "/redirect/2", "--cacert", ca, "-L", "--max-redirs", "1"}, []string{"1 redirects followed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, _, stderr := run(t, context.Background(), append([]string{"probe", "-s"}, tt.args...)...)
			if code != ExitFailure {
				t.Fatalf("probe %q = %d; want %d\nstderr:\n%s", tt.args, code, ExitFailure, stderr)
			}
			for _, w := range append([]string{"httpslab: error: "}, tt.wantErr...) {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("probe took %v; want it bounded by --max-time or the server's close", d)
			}
		})
	}
	har := filepath.Join(t.TempDir(), "run.har")
	if code, _, _ := run(t, context.Background(), "probe", "https://127.0.0.1:99999/", "--har", har); code != ExitUsage {
		t.Errorf("probe with a bad port and --har = %d; want %d", code, ExitUsage)
	}
	if _, err := os.Stat(har); !os.IsNotExist(err) {
		t.Errorf("a usage error left the --har file behind (stat: %v)", err)
	}
	code, _, stderr := run(t, context.Background(), "probe", "-s", srv.HTTPSURL+"/redirect/2", "--cacert", ca, "-L", "--max-redirs", "-1")
	if code != ExitOK {
		t.Errorf("--max-redirs -1 (no limit, as curl) = %d; want %d\n%s", code, ExitOK, stderr)
	}
}

// brokenServers starts three TCP servers that misbehave after reading
// the request: one closes without a word, one closes in the middle of a
// 1000-byte body, one never answers.
func brokenServers(t *testing.T) (closer, cut, silent string) {
	t.Helper()
	return labtest.NewMisbehaving(t, labtest.CloseAfterRequest).Addr,
		labtest.NewMisbehaving(t, labtest.CloseMidBody).Addr,
		labtest.NewMisbehaving(t, labtest.Silent).Addr
}

// TestProbeDataFromStdin: -d @- and --data-binary @- read standard input
// as curl does (they looked for a file named "-"); a directory is a usage
// error.
func TestProbeDataFromStdin(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	defer func(r io.Reader) { stdin = r }(stdin)
	tests := []struct {
		flag, in, want string
	}{
		{"-d", "a=1\nb=2\n", "POST 6\n"}, // -d drops the newlines
		{"--data-binary", "a=1\nb=2\n", "POST 8\n"},
	}
	for _, tt := range tests {
		stdin = strings.NewReader(tt.in)
		code, stdout, stderr := run(t, context.Background(), "probe", "-s", srv.HTTPSURL+"/headers", "--cacert", ca,
			tt.flag, "@-", "-w", "%{method} %{size_upload}\n")
		if code != ExitOK || stdout != tt.want {
			t.Errorf("probe %s @- = %d, %q; want %d, %q\n%s", tt.flag, code, stdout, ExitOK, tt.want, stderr)
		}
	}
	code, _, stderr := run(t, context.Background(), "probe", "-s", srv.HTTPSURL+"/", "--cacert", ca, "-d", "@"+t.TempDir())
	if code != ExitUsage || !strings.Contains(stderr, "is a directory") {
		t.Errorf("probe -d @DIR = %d, %q; want %d and 'is a directory'", code, stderr, ExitUsage)
	}
}

// TestProbeZeroRTTRefused: --0rtt against a server that refuses early
// data says so on the resumed connection (it read as a plain resumption),
// and against one without tickets the note says why nothing resumed.
func TestProbeZeroRTTRefused(t *testing.T) {
	refusing, ca := probeTarget(t, lab.Config{No0RTT: true})
	code, stdout, stderr := run(t, context.Background(), "probe", refusing.HTTPSURL+"/", "--cacert", ca, "--0rtt")
	if want := "resumed, but the server REFUSED 0-RTT"; code != ExitOK || !strings.Contains(stdout, want) {
		t.Errorf("probe --0rtt against a server refusing 0-RTT = %d; want %d and %q\n%s%s", code, ExitOK, want, stdout, stderr)
	}
	noTickets, ca2 := probeTarget(t, lab.Config{NoTickets: true})
	code, _, stderr = run(t, context.Background(), "probe", noTickets.HTTPSURL+"/", "--cacert", ca2, "--0rtt", "-s")
	if want := "note: the server sent no session ticket"; code != ExitOK || !strings.Contains(stderr, want) {
		t.Errorf("probe --0rtt against a server without tickets = %d, stderr %q; want %d and %q", code, stderr, ExitOK, want)
	}
}

// TestMaxTimeDefault: without --max-time probe and compare are bounded
// by their own defaults (a server that accepts and never answers held a
// probe forever); --max-time 0 is curl's "no limit" in both (compare
// took it for its 30 s default).
func TestMaxTimeDefault(t *testing.T) {
	tests := []struct {
		maxTime     string
		probe, cmpr time.Duration
	}{
		{"", defaultProbeTimeout, defaultCompareTimeout},
		{"0", 0, 0},
		{"2.5", 2500 * time.Millisecond, 2500 * time.Millisecond},
		{"1500ms", 1500 * time.Millisecond, 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		f := probeFlags{p: probe.Flags{Runs: 1}}
		f.req.MaxTime = tt.maxTime
		cfg, err := f.config("https://127.0.0.1:8443/")
		if err != nil || cfg.Timeout != tt.probe {
			t.Errorf("probe --max-time %q: timeout %v, %v; want %v", tt.maxTime, cfg.Timeout, err, tt.probe)
		}
		var c compareFlags
		c.req.MaxTime = tt.maxTime
		ccfg, err := c.req.probeConfig("", defaultCompareTimeout) // as runCompare does
		if err != nil || ccfg.Timeout != tt.cmpr {
			t.Errorf("compare --max-time %q: timeout %v, %v; want %v", tt.maxTime, ccfg.Timeout, err, tt.cmpr)
		}
	}
}

// TestProbeHTTP2NotOffered: --http2 against a server whose ALPN has no h2
// (nginx without http2) fails with a hint that names the cause.
func TestProbeHTTP2NotOffered(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := n.CA.WriteFile(ca); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, context.Background(), "probe", "-s", n.HTTPSURL+"/", "--cacert", ca, "--http2")
	if want := "hint: the server offers none of the protocols asked for in ALPN"; code != ExitFailure || !strings.Contains(stderr, want) {
		t.Errorf("probe --http2 against HTTP/1.1-only nginx = %d, stderr %q; want %d and %q", code, stderr, ExitFailure, want)
	}
}

// TestProbeLegacyTLSRefused: nginx on OpenSSL 3 refuses TLS 1.1 with an
// "internal error" alert, which says nothing of versions; the hint says
// that the server refused the old version.
func TestProbeLegacyTLSRefused(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{})
	code, _, stderr := run(t, context.Background(), "probe", "-s", "-k", "--tls-max", "1.1", n.HTTPSURL+"/")
	if code != ExitFailure || !strings.Contains(stderr, "httpslab: error: ") ||
		!strings.Contains(stderr, "hint: the server refused the handshake at --tls-max 1.1; most servers no longer speak TLS 1.1") {
		t.Errorf("probe --tls-max 1.1 of nginx = %d; want %d and a hint about the old version\nstderr:\n%s", code, ExitFailure, stderr)
	}
}
