package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/transport"
)

func TestBenchCommand(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	u := s.HTTPSURL + "/bytes/100"
	urls := filepath.Join(t.TempDir(), "urls.txt")
	list := "# two targets\n" + s.HTTPSURL + "/bytes/10\n\n  " + s.HTTPSURL + "/bytes/20  \n"
	if err := os.WriteFile(urls, []byte(list), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "bench.html")
	tests := []struct {
		args     []string
		code     int
		stdout   string
		stderr   string
		wantJSON bool
	}{
		{args: []string{"bench", u, "--cacert", ca, "-c", "2", "-n", "50"}, code: ExitOK, stdout: "Requests:        50 completed, 0 failed"},
		{args: []string{"bench", u, "--cacert", ca, "-n", "20", "--fail-if", "errors>0", "--fail-if", "p99>10s"}, code: ExitOK},
		{args: []string{"bench", u, "--cacert", ca, "-n", "20", "--fail-if", "rps<1e9"}, code: ExitThreshold, stderr: "threshold tripped: rps<1e9"},
		{args: []string{"bench", u, "--cacert", ca, "-n", "10", "--json"}, code: ExitOK, wantJSON: true},
		{args: []string{"bench", u, "--cacert", ca, "-n", "10", "--json", "--fail-if", "rps<1e9", "--fail-if", "errors>5", "--html", page},
			code: ExitThreshold, stdout: `"tripped": true`},
		{args: []string{"bench", u, "-n", "4", "-c", "1"}, code: ExitFailure, stderr: "--cacert"},
		{args: []string{"bench", u, "--conn", "sometimes"}, code: ExitUsage, stderr: "unknown connection mode"},
		{args: []string{"bench", u, "-d", "soon"}, code: ExitUsage, stderr: "want a duration"},
		{args: []string{"bench", u, "--pipeline", "2", "--http2"}, code: ExitUsage, stderr: "pipelining"},
		{args: []string{"bench", u, "--fail-if", "p99"}, code: ExitUsage, stderr: "threshold"},
		{args: []string{"bench", u, "-c", "0"}, code: ExitUsage, stderr: "httpslab: error: -c 0: want at least 1"},
		// Three targets in rotation, 30 requests: 10 x 100 + 10 x 10 + 10 x 20 = 1300 body bytes.
		{args: []string{"bench", u, "-i", urls, "--cacert", ca, "-c", "1", "-n", "30"}, code: ExitOK, stdout: "1.27 KiB of response bodies"},
		{args: []string{"bench", "-i", empty}, code: ExitUsage, stderr: "httpslab: error: no URL to load"},
		{args: []string{"bench", u, "--cacert", ca, "-t", "1", "-n", "20"}, code: ExitOK, stdout: "of 1 core(s)"},
		{args: []string{"bench", u, "-t", "-2"}, code: ExitUsage, stderr: "-t -2: want 0"},
		{args: []string{"bench"}, code: ExitUsage, stderr: "httpslab: hint: give one or more URLs, or a file of them with -i FILE"},
		{args: []string{"bench", "-i", "/nonexistent/urls.txt"}, code: ExitUsage, stderr: "reading --input-file"},
		{args: []string{"bench", u, "--rate", "NaN"}, code: ExitUsage, stderr: `invalid argument "NaN" for "-R, --rate" flag: want requests per second`},
		{args: []string{"bench", u, "--timeout", "0s"}, code: ExitUsage, stderr: "--timeout 0s: want a positive duration"},
		{args: []string{"bench", u, "--server-pid", "0"}, code: ExitUsage, stderr: "--server-pid 0: no such process"},
		{args: []string{"bench", u, "--tls-max", "1.1", "--http2", "-k"}, code: ExitUsage, stderr: "HTTP/2 needs TLS 1.2 or later"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("httpslab %q = %d\nstdout:\n%s\nstderr:\n%s\nwant %d, stdout with %q, stderr with %q",
				tt.args, code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
		if tt.wantJSON {
			var env struct {
				Schema string `json:"schema"`
				Result struct {
					Requests  int64                  `json:"requests"`
					Intervals []report.BenchInterval `json:"intervals"`
				} `json:"result"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &env); err != nil || env.Schema != "httpslab/bench/v4" || env.Result.Requests != 10 {
				t.Errorf("--json output: %v, schema %q, requests %d; want httpslab/bench/v4 with 10", err, env.Schema, env.Result.Requests)
			}
			// A text report leaves each second's histograms out; the JSON keeps them.
			n := int64(0)
			for _, iv := range env.Result.Intervals {
				h, err := iv.Histogram("total")
				if err != nil {
					t.Errorf("--json output: %v", err)
					continue
				}
				n += h.TotalCount()
			}
			if n != env.Result.Requests {
				t.Errorf("--json output: the intervals' total histograms hold %d requests; want %d", n, env.Result.Requests)
			}
		}
	}
	// The --fail-if thresholds, each passed or failed, in the JSON and the report.
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<th scope=\"row\">errors&gt;5</th><td>0</td><td class=\"text\">passed</td>", "rps&lt;1e9</th>", "FAILED (exit code 3)"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("bench --html with --fail-if: the report has no %q", w)
		}
	}
}

// seen records what the server received, for the header and body tests.
type seen struct {
	mu   sync.Mutex
	reqs []string // "method host ua xlab bodylen"
}

func (s *seen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.reqs = append(s.reqs, fmt.Sprintf("%s %s ua=%q x=%q body=%d", r.Method, r.Host, r.Header.Values("User-Agent"), r.Header.Get("X-Lab"), len(body)))
	s.mu.Unlock()
}

func (s *seen) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.reqs
	s.reqs = nil
	return out
}

// TestBenchRequestFlags checks that -H (with curl's forms) and the body
// flags reach the server on HTTP/1.1 and HTTP/2, and that a body file
// over the limit is refused before the run.
func TestBenchRequestFlags(t *testing.T) {
	srv := &seen{}
	s := labtest.StartServer(t, lab.Config{Handler: srv, NoHTTP3: true})
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, s.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	body := filepath.Join(dir, "body.json")
	if err := os.WriteFile(body, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, transport.MaxBody+1); err != nil {
		t.Fatal(err)
	}
	base := []string{"bench", s.HTTPSURL + "/", "--cacert", ca, "-c", "1", "-n", "3", "-H", "Host: vhost.test", "-H", "X-Lab: yes", "-H", "User-Agent:"}
	tests := []struct {
		args []string
		code int
		want string // each request the server saw
	}{
		{args: base, code: ExitOK, want: `GET vhost.test ua=[] x="yes" body=0`},
		{args: append(slices.Clone(base), "--http2"), code: ExitOK, want: `GET vhost.test ua=[] x="yes" body=0`},
		{args: append(slices.Clone(base), "-d", "@"+body), code: ExitOK, want: `POST vhost.test ua=[] x="yes" body=7`},
		{args: append(slices.Clone(base), "--data", "@"+body, "--http2"), code: ExitOK, want: `POST vhost.test ua=[] x="yes" body=7`},
		{args: append(slices.Clone(base), "-d", "@"+big), code: ExitUsage},
		{args: append(slices.Clone(base), "-H", "no colon"), code: ExitUsage},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), tt.args, &stdout, &stderr)
		got := srv.take()
		var want []string
		if tt.want != "" {
			want = []string{tt.want, tt.want, tt.want}
		}
		if code != tt.code || !slices.Equal(got, want) {
			t.Errorf("httpslab %q = %d, server saw %q\nstderr:\n%s\nwant %d, %q", tt.args, code, got, stderr.String(), tt.code, want)
		}
	}
}
