package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// probeTarget starts the embedded server and writes its CA.
func probeTarget(t *testing.T, cfg lab.Config) (*lab.Server, string) {
	t.Helper()
	srv := labtest.StartServer(t, cfg)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := srv.CA.WriteFile(ca); err != nil {
		t.Fatal(err)
	}
	return srv, ca
}

func TestProbeCommand(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{})
	legacy := labtest.StartServer(t, lab.Config{NoHTTP3: true, MinVersion: tls.VersionTLS10})
	closed := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	closedURL := closed.HTTPSURL + "/"
	closed.Close()
	u := srv.HTTPSURL + "/"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		wantErr  []string
	}{
		{"verified", []string{u, "--cacert", ca}, ExitOK, []string{"→ 200 HTTP/2.0", "connect", "TLS 1.3", "verified      yes"}, nil},
		{"insecure", []string{u, "-k", "--http1.1"}, ExitOK, []string{"→ 200 HTTP/1.1", "verified      no"}, nil},
		{"tls-max", []string{u, "--cacert", ca, "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-AES256-GCM-SHA384"}, ExitOK,
			[]string{"TLS 1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"}, nil},
		{"curves", []string{u, "--cacert", ca, "--curves", "P-384"}, ExitOK, []string{"group         secp384r1"}, nil},
		{"curves openssl alias", []string{u, "--cacert", ca, "--curves", "prime256v1"}, ExitOK, []string{"group         secp256r1"}, nil},
		{"curves x448", []string{u, "--cacert", ca, "--curves", "x448"}, ExitUsage, nil,
			[]string{"httpslab: error: ", "group x448 is not one Go's TLS can offer"}},
		{"tls-max 1.1", []string{legacy.HTTPSURL + "/", "-k", "--tls-max", "1.1"}, ExitOK, []string{"→ 200 HTTP/1.1", "TLS 1.1", "ALPN          http/1.1"}, nil},
		{"tls-max 1.1 http2", []string{legacy.HTTPSURL + "/", "-k", "--tls-max", "1.1", "--http2"}, ExitUsage, nil,
			[]string{"httpslab: error: ", "HTTP/2 needs TLS 1.2 or later"}},
		{"self-signed", []string{u}, ExitFailure, []string{"connect", "failed:"},
			[]string{"httpslab: error: ", "unknown authority", "httpslab: hint: ", "--cacert FILE or -k"}},
		{"refused", []string{closedURL, "-k"}, ExitFailure, nil, []string{"connection refused", "nothing listens"}},
		{"timeout", []string{srv.HTTPSURL + "/delay/5s", "-k", "--max-time", "0.2"}, ExitFailure, []string{"failed:"},
			[]string{"deadline exceeded", "raise --max-time"}},
		{"resume", []string{u, "--cacert", ca, "--resume"}, ExitOK,
			[]string{"connection 2: new connection, resumed session", "TLS resumed 1 of 2 handshakes", "resumption saved"}, nil},
		{"reuse", []string{u, "--cacert", ca, "--reuse"}, ExitOK, []string{"same connection as before", "connection reused"}, nil},
		{"count", []string{u, "--cacert", ca, "-n", "3", "--http1.1"}, ExitOK, []string{"3 requests to", "median", "TLS resumed 0 of 3"}, nil},
		{"redirects", []string{srv.HTTPSURL + "/redirect/2", "--cacert", ca, "-L"}, ExitOK, []string{"hop 3 of 3", "→ 200"}, nil},
		{"resolve", []string{"https://httpslab.test:" + port(t, u) + "/", "--cacert", ca, "--resolve", "httpslab.test:" + port(t, u) + ":127.0.0.1"}, ExitOK, []string{"→ 200"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, context.Background(), append([]string{"probe"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("probe %q = %d; want %d\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.wantCode, stdout, stderr)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func port(t *testing.T, u string) string {
	t.Helper()
	m := regexp.MustCompile(`:(\d+)/`).FindStringSubmatch(u)
	if m == nil {
		t.Fatalf("no port in %q", u)
	}
	return m[1]
}

func TestProbeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"https://x/", "--resume", "--reuse"},
		{"https://x/", "--tls-max", "1.4"},
		{"https://x/", "--tlsv1.3", "--tls-max", "1.2"},
		{"https://x/", "--ciphers", "HIGH:!aNULL"},
		{"https://x/", "--curves", "brainpool"},
		{"https://x/", "-o", "body.bin"},
		{"https://x/", "--http2", "--http3"},
		{"https://x/", "--http1.1", "--0rtt"},
		{"https://x/", "--resolve", "x:443"},
		{"https://x/", "--connect-to", "x"},
		{"https://x/", "--max-time", "soon"},
		{"https://x/", "-4", "-6"},
		{"https://x/", "-H", "no colon"},
		{"https://x/", "-n", "-1"},
		{"https://x/", "-d", "@/nonexistent/file"},
		{"https://x/", "-w", "@/nonexistent/format"},
		{"ftp://x/"},
		{},
	} {
		code, _, stderr := run(t, context.Background(), append([]string{"probe"}, args...)...)
		if code != ExitUsage || !strings.HasPrefix(stderr, "httpslab: error: ") {
			t.Errorf("probe %q = %d, stderr %q; want %d and an httpslab error", args, code, stderr, ExitUsage)
		}
	}
}

// TestProbeWriteOutCurlFormat runs the curl-format.txt of the nginx
// upgrade study: every variable must be printed, none left raw.
func TestProbeWriteOutCurlFormat(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{})
	code, stdout, stderr := run(t, context.Background(), "probe", "-w", "@../../testdata/curl-format.txt", "-o", os.DevNull, "-s", "--cacert", ca, srv.HTTPSURL+"/")
	if code != ExitOK || stderr != "" {
		t.Fatalf("probe -w = %d, stderr %q", code, stderr)
	}
	format, err := os.ReadFile("../../testdata/curl-format.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(string(format), "%{")
	values := regexp.MustCompile(`(?m)^\s*(\w+):\s+(\S+)`).FindAllStringSubmatch(stdout, -1)
	if len(values) != 14 || want != 16 || strings.Contains(stdout, "%{") {
		t.Fatalf("%d lines printed for %d variables; want 14 lines (remote and local hold two each):\n%s", len(values), want, stdout)
	}
	for _, v := range values {
		if v[2] == "s" || v[2] == "bytes" || v[2] == ":0" {
			t.Errorf("%s printed no value: %q", v[1], v[0])
		}
	}
	// size is the index page's body as the server sends it.
	size := fmt.Sprintf("size:  %dbytes", len(indexPage(t, srv)))
	for _, w := range []string{"scheme:  HTTPS", "http_code:  200", "http_version:  http/2", size} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
}

// indexPage returns the body of the embedded server's index page.
func indexPage(t *testing.T, srv *lab.Server) []byte {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CA.Pool()}}, Timeout: 10 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Get(srv.HTTPSURL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestProbeJSONAndHAR(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{})
	har := filepath.Join(t.TempDir(), "run.har")
	code, stdout, stderr := run(t, context.Background(), "probe", "--json", "--har", har, "--cacert", ca, "-L",
		"-X", "POST", "-d", "a=1", "-H", "X-Probe: yes", srv.HTTPSURL+"/redirect/1")
	if code != ExitOK {
		t.Fatalf("probe --json = %d; stderr %s", code, stderr)
	}
	var doc struct {
		Schema string `json:"schema"`
		Result struct {
			Runs []struct {
				Mode string `json:"mode"`
				Hops []struct {
					Method         string                   `json:"method"`
					Status         int                      `json:"status"`
					RequestHeaders map[string][]string      `json:"request_headers"`
					TLS            struct{ Version string } `json:"tls"`
				} `json:"hops"`
			} `json:"runs"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("probe --json output is not JSON: %v\n%s", err, stdout)
	}
	if doc.Schema != "httpslab/probe/v4" || len(doc.Result.Runs) != 1 || doc.Result.Runs[0].Mode != "new" {
		t.Fatalf("JSON %+v; want one fresh run in schema httpslab/probe/v4", doc)
	}
	hops := doc.Result.Runs[0].Hops
	if len(hops) != 2 || hops[0].Method != "POST" || hops[1].Method != "GET" || hops[1].Status != 200 {
		t.Fatalf("hops %+v; want POST then GET (302 turns POST into GET), ending in 200", hops)
	}
	if h := hops[0].RequestHeaders; h["X-Probe"][0] != "yes" || h["Content-Type"][0] != "application/x-www-form-urlencoded" || hops[0].TLS.Version != "TLS 1.3" {
		t.Errorf("first hop headers %v, TLS %q; want X-Probe, a form content type and TLS 1.3", h, hops[0].TLS.Version)
	}
	checkHAR(t, har, 2)
}

// checkHAR checks the HAR 1.2 structure: the required fields and the
// timing rules (-1 for what did not happen, connect includes ssl).
func checkHAR(t *testing.T, path string, entries int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var har struct {
		Log struct {
			Version string `json:"version"`
			Creator struct{ Name, Version string }
			Entries []struct {
				StartedDateTime string   `json:"startedDateTime"`
				Time            *float64 `json:"time"`
				Request         struct {
					Method, URL, HTTPVersion string
					Headers                  []struct{ Name, Value string }
					HeadersSize, BodySize    *int
				}
				Response struct {
					Status      *int
					HTTPVersion string
					Headers     []struct{ Name, Value string }
					Content     struct {
						Size     *int
						MimeType *string
					}
					HeadersSize, BodySize *int
				}
				Timings struct {
					Blocked, DNS, Connect, SSL *float64
					Send, Wait, Receive        *float64
				}
			}
		}
	}
	if err := json.Unmarshal(b, &har); err != nil {
		t.Fatalf("HAR is not JSON: %v", err)
	}
	if har.Log.Version != "1.2" || har.Log.Creator.Name == "" || len(har.Log.Entries) != entries {
		t.Fatalf("HAR log version %q, creator %q, %d entries; want 1.2, a creator, %d", har.Log.Version, har.Log.Creator.Name, len(har.Log.Entries), entries)
	}
	for i, e := range har.Log.Entries {
		tm := e.Timings
		if e.StartedDateTime == "" || e.Time == nil || e.Request.Method == "" || e.Request.URL == "" || e.Request.HTTPVersion == "" ||
			e.Request.Headers == nil || e.Request.HeadersSize == nil || e.Request.BodySize == nil || e.Response.Status == nil ||
			e.Response.Headers == nil || e.Response.Content.Size == nil || e.Response.Content.MimeType == nil ||
			tm.Send == nil || tm.Wait == nil || tm.Receive == nil {
			t.Errorf("entry %d lacks a required HAR 1.2 field: %s", i, b)
			continue
		}
		if *tm.Send < 0 || *tm.Wait < 0 || *tm.Receive < 0 {
			t.Errorf("entry %d: send, wait, receive %v %v %v; want non-negative", i, *tm.Send, *tm.Wait, *tm.Receive)
		}
		for _, opt := range []*float64{tm.Blocked, tm.DNS, tm.Connect, tm.SSL} {
			if opt != nil && *opt < 0 && *opt != -1 {
				t.Errorf("entry %d: optional timing %v; want -1 or non-negative", i, *opt)
			}
		}
		if tm.SSL != nil && *tm.SSL >= 0 && (tm.Connect == nil || *tm.Connect < *tm.SSL) {
			t.Errorf("entry %d: connect %v does not include ssl %v", i, tm.Connect, *tm.SSL)
		}
	}
}

// TestProbeInterrupted cancels a long -n run the way Ctrl-C does: the
// requests done so far are summarized and the exit code says interrupted.
func TestProbeInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The interrupt comes with the fourth request, in the middle of the
	// run: three are done, the fourth is cut short.
	var served atomic.Int64
	h := lab.Handler()
	srv, ca := probeTarget(t, lab.Config{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 4 {
			cancel()
		}
		h.ServeHTTP(w, r)
	})})
	code, stdout, stderr := run(t, ctx, "probe", "-n", "1000", "--cacert", ca, srv.HTTPSURL+"/delay/50ms")
	if code != ExitInterrupted {
		t.Fatalf("interrupted probe = %d; want %d (stderr %q)", code, ExitInterrupted, stderr)
	}
	m := regexp.MustCompile(`(\d+) requests to`).FindStringSubmatch(stdout)
	if m == nil || m[1] != "3" || strings.Contains(stdout, "failed") {
		t.Errorf("partial summary %q; want the 3 requests done, none cut off:\n%s", m, stdout)
	}
}
