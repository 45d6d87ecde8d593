//go:build !race

// The README's examples run the built binary, not this test binary, so
// the race detector would add only time: this test is built without
// -race only, and scripts/test.sh runs it once, in its plain pass.

package main

import (
	"bufio"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// outcome is what a README example must do: its exit code and a line of
// its output (stdout and stderr together) that must appear.
type outcome struct {
	code int
	line string
}

// readmeOutcomes holds the expected outcome of every example the README
// marks runnable, by its command line as the README writes it. An
// example without an outcome, or an outcome without its example, fails
// the test: the README and this table change together.
var readmeOutcomes = map[string]outcome{
	"httpslab probe https://127.0.0.1:8443/ --cacert ca.pem":                                 {0, "verified      yes"},
	"httpslab probe -n 30 --http1.1 https://127.0.0.1:8443/ --cacert ca.pem":                 {0, "30 requests to https://127.0.0.1:8443/"},
	"httpslab probe --resume --tls-max 1.2 https://127.0.0.1:8443/ -k":                       {0, "new connection, resumed session"},
	"httpslab probe --http3 --0rtt https://127.0.0.1:8443/ --cacert ca.pem":                  {0, "request sent as 0-RTT early data"},
	"httpslab probe -w @testdata/curl-format.txt -o /dev/null -s https://127.0.0.1:8443/ -k": {0, "http_code:  200"},
	"httpslab probe -L --har run.har --json https://127.0.0.1:8443/redirect/2 -k":            {0, `"schema": "httpslab/probe/`},
	"U=https://127.0.0.1:8443": {0, ""},
	"httpslab bench $U/headers $U/status/201 -k -X POST -H 'Content-Type: application/json' -d @body.json -n 1000": {0, "Status codes:    200: "},
	"httpslab bench $U/ --cacert ca.pem --conn resume -c 20 -n 2000":                                               {0, "Requests:        2000 completed, 0 failed"},
	"httpslab audit https://127.0.0.1:8443/ --cacert ca.pem --http-port 8080":                                      {0, "http-no-redirect"},
	"httpslab bench --json -n 2000 https://127.0.0.1:8443/ --cacert ca.pem > h1.json":                              {0, ""},
	"httpslab bench --json -n 2000 --http2 https://127.0.0.1:8443/ --cacert ca.pem > h2.json":                      {0, ""},
	"httpslab report h1.json h2.json --label HTTP/1.1 --label HTTP/2 -o report.html":                               {0, ""},
}

// exampleTimeout caps each example.
const exampleTimeout = 20 * time.Second

// TestREADMEExamples runs the README's runnable examples, as the README
// writes them, against the embedded server: the built httpslab first on
// the PATH, the hosts and ports of the serve example (127.0.0.1:8443 and
// :8080) rewritten to the server's, in a directory holding what the
// examples name (ca.pem, body.json, testdata/curl-format.txt).
func TestREADMEExamples(t *testing.T) {
	blocks := readmeBlocks(t, "../../README.md")
	bin := httpslabBinary(t)
	srv := labtest.StartServer(t, lab.Config{})
	dir := exampleDir(t, srv)
	https, plain := hostPort(t, srv.HTTPSURL), hostPort(t, srv.HTTPURL)
	_, plainPort, _ := strings.Cut(plain, ":")
	rewrite := strings.NewReplacer("127.0.0.1:8443", https, "127.0.0.1:8080", plain, "--http-port 8080", "--http-port "+plainPort)
	seen := map[string]bool{}
	for _, b := range blocks {
		if !b.run {
			continue
		}
		env := os.Environ()
		env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		for _, line := range b.commands {
			want, ok := readmeOutcomes[line]
			if !ok {
				t.Errorf("README line %d: %q is marked runnable but has no outcome in readmeOutcomes", b.line, line)
				continue
			}
			seen[line] = true
			if name, value, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(name, " $") {
				env = append(env, name+"="+rewrite.Replace(value)) // a variable the next lines use
				continue
			}
			want.line = rewrite.Replace(want.line)
			runExample(t, dir, env, rewrite.Replace(line), line, want)
		}
	}
	for line := range readmeOutcomes {
		if !seen[line] {
			t.Errorf("readmeOutcomes has %q, which no runnable README example holds", line)
		}
	}
}

// runExample runs one example line with sh in dir and checks its outcome.
func runExample(t *testing.T, dir string, env []string, cmdline, readme string, want outcome) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), exampleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", cmdline)
	cmd.Dir, cmd.Env = dir, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if ctx.Err() != nil {
		t.Errorf("%s: still running after %v (killed)", readme, exampleTimeout)
		return
	}
	if code != want.code || !strings.Contains(string(out), want.line) {
		t.Errorf("%s: exit %d (%v) after %v; want %d and a line with %q:\n%s", readme, code, err,
			time.Since(start).Round(time.Millisecond), want.code, want.line, out)
	}
}

// exampleDir makes the directory the examples run in.
func exampleDir(t *testing.T, srv *lab.Server) string {
	t.Helper()
	dir := t.TempDir()
	if err := srv.CA.WriteFile(filepath.Join(dir, "ca.pem")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "body.json"), []byte(`{"greeting": "hello"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	format, err := os.ReadFile("../../testdata/curl-format.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "testdata", "curl-format.txt"), format, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// readmeBlock is one fenced code block of the README that holds
// httpslab commands.
type readmeBlock struct {
	line     int      // of the opening fence
	run      bool     // marked <!-- example: run ... -->
	commands []string // the command lines, comments and "$ " prompts taken off
}

// marker is the HTML comment before a fenced block that says whether its
// examples run: "<!-- example: run (...) -->" or "<!-- example: not run (why) -->".
var marker = regexp.MustCompile(`^<!-- example: (run|not run) \(.+\) -->$`)

// readmeBlocks reads the README's fenced blocks that hold httpslab
// commands; each must be marked. In a block with "$ " prompts (a
// transcript), only the prompted lines are commands.
func readmeBlocks(t *testing.T, path string) []readmeBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	var prev string
	var body []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur, body = &readmeBlock{line: n}, nil
			if m := marker.FindStringSubmatch(prev); m != nil {
				cur.run = m[1] == "run"
			} else {
				cur.line = -n // unmarked; an error if it holds a command
			}
		case cur != nil && strings.HasPrefix(line, "```"):
			cur.commands = commands(body)
			if len(cur.commands) > 0 {
				if cur.line < 0 {
					t.Errorf("README line %d: a block of httpslab examples without an <!-- example: run|not run (why) --> marker", -cur.line)
				}
				blocks = append(blocks, *cur)
			}
			cur = nil
		case cur != nil:
			body = append(body, line)
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// commands returns the command lines of a block's body: the httpslab
// commands and variable settings, without trailing comments; in a
// transcript, the lines after a "$ " prompt.
func commands(body []string) []string {
	prompted := false
	for _, l := range body {
		prompted = prompted || strings.HasPrefix(l, "$ ")
	}
	var out []string
	for _, l := range body {
		if prompted {
			if c, ok := strings.CutPrefix(l, "$ "); ok && strings.HasPrefix(c, "httpslab ") {
				out = append(out, strings.TrimSpace(c))
			}
			continue
		}
		l, _, _ = strings.Cut(l, "  #") // a comment after the command
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "httpslab ") || strings.HasPrefix(l, "sudo httpslab ") || regexp.MustCompile(`^[A-Z]+=\S+$`).MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}
