//go:build !race

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
)

// maxRSS is the peak resident memory a command may reach against a
// hostile server: what it reads from the peer is bounded, so the server
// cannot grow it.
const maxRSS = 100 << 20

// hostileCase is one command run against one misbehaving server: its
// expected exit code, a text its output must hold, and its time bound.
type hostileCase struct {
	name   string
	mode   labtest.Mode
	args   func(s *labtest.Misbehaving, ca string) []string
	code   int
	want   string
	within time.Duration
}

// TestHostileServers runs the built httpslab against each misbehaving
// server: each run ends with a clear error or a correct result, within
// its time bound, with its peak RSS (the child's rusage) under 100 MiB,
// and prints no control character the server sent.
func TestHostileServers(t *testing.T) {
	bin := filepath.Join(httpslabBinary(t), "httpslab")
	for _, tt := range hostileCases() {
		t.Run(tt.name, func(t *testing.T) {
			s := labtest.NewMisbehaving(t, tt.mode)
			ca := ""
			if s.CA != nil {
				ca = filepath.Join(t.TempDir(), "ca.pem")
				if err := s.CA.WriteFile(ca); err != nil {
					t.Fatal(err)
				}
			}
			args := tt.args(s, ca)
			ctx, cancel := context.WithTimeout(context.Background(), 2*tt.within)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			_ = cmd.Run()
			took := time.Since(start)
			if code := cmd.ProcessState.ExitCode(); code != tt.code || !strings.Contains(out.String(), tt.want) {
				t.Errorf("httpslab %s: exit %d; want %d and output with %q\n%s", strings.Join(args, " "), code, tt.code, tt.want, out.String())
			}
			if took > tt.within {
				t.Errorf("took %v; want at most %v", took, tt.within)
			}
			if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > maxRSS {
				t.Errorf("peak RSS %d MiB; want under %d MiB", rss>>20, maxRSS>>20)
			}
			if i := bytes.IndexFunc(out.Bytes(), func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' }); i >= 0 {
				t.Errorf("output holds control character %q at byte %d", out.Bytes()[i], i)
			}
		})
	}
}

// hostileCases are the commands and modes of TestHostileServers.
func hostileCases() []hostileCase {
	probe := func(extra ...string) func(*labtest.Misbehaving, string) []string {
		return func(s *labtest.Misbehaving, ca string) []string {
			args := append([]string{"probe", s.URL(), "--max-time", "10"}, extra...)
			if ca != "" {
				args = append(args, "--cacert", ca)
			}
			return args
		}
	}
	bench := func(extra ...string) func(*labtest.Misbehaving, string) []string {
		return func(s *labtest.Misbehaving, ca string) []string {
			args := append([]string{"bench", s.URL(), "--timeout", "5s"}, extra...)
			if ca != "" {
				args = append(args, "--cacert", ca)
			}
			return args
		}
	}
	page := func(extra ...string) func(*labtest.Misbehaving, string) []string {
		return func(s *labtest.Misbehaving, _ string) []string {
			return append([]string{"page", s.URL(), "-n", "1"}, extra...)
		}
	}
	// withBody writes a body of 100,000 bytes (100 of the tiny window's
	// 1000 bytes) next to the CA file and adds flag @FILE to args.
	withBody := func(flag string, args func(*labtest.Misbehaving, string) []string) func(*labtest.Misbehaving, string) []string {
		return func(s *labtest.Misbehaving, ca string) []string {
			body := filepath.Join(filepath.Dir(ca), "body.bin")
			if err := os.WriteFile(body, bytes.Repeat([]byte("0123456789"), 10000), 0o644); err != nil {
				panic(err)
			}
			return append(args(s, ca), flag, "@"+body)
		}
	}
	audit := func(s *labtest.Misbehaving, ca string) []string {
		return []string{"audit", s.URL(), "--cacert", ca, "--max-time", "5"}
	}
	return []hostileCase{
		{"probe, headers forever", labtest.HeadersForever, probe(), 1, "larger than the limit", 10 * time.Second},
		{"probe, endless header line", labtest.EndlessHeaderLine, probe(), 1, "larger than the limit", 10 * time.Second},
		{"probe, 1xx forever", labtest.InformationalForever, probe(), 1, "httpslab: error:", 10 * time.Second},
		{"probe, hostile certificate", labtest.HostileCert, probe(), 0, `CN=127.0.0.1\x1b]0\;pwned\x07`, 10 * time.Second},
		{"audit, hostile certificate", labtest.HostileCert, audit, 0, "Certificate   ECDSA P-256", 30 * time.Second},
		{"audit, trickle", labtest.TLS(labtest.Trickle("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", time.Second)), audit, 1,
			"the audit reached its time limit", 15 * time.Second},
		{"bench, headers forever", labtest.HeadersForever, bench("-n", "3"), 1, "response header over the limit of 1 MiB", 15 * time.Second},
		{"bench, close mid-pipeline", labtest.CloseMidPipeline(3), bench("-n", "100", "--pipeline", "4"), 0, "100 completed, 0 failed", 15 * time.Second},
		{"bench --http2, CONTINUATION forever", labtest.H2HeadersForever, bench("--http2", "-n", "3"), 1, "response header over the limit of 1 MiB", 15 * time.Second},
		{"bench --http2, 1xx forever", labtest.H2InformationalForever, bench("--http2", "-n", "3"), 1, "response header over the limit of 1 MiB", 15 * time.Second},
		{"bench --http2, window 0", labtest.H2WindowZero, withBody("--data", bench("--http2", "-n", "3", "--timeout", "2s")), 1,
			"flow-control window stayed shut", 15 * time.Second},
		{"bench --http2, max streams 0", labtest.H2NoStreams, bench("--http2", "-n", "3", "--timeout", "2s"), 1,
			"allowed no concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS 0) and did not raise the limit", 15 * time.Second},
		{"bench --http2, GOAWAY after 10", labtest.H2GoAwayAfter(10), bench("--http2", "-n", "100"), 0, "100 completed, 0 failed", 15 * time.Second},
		{"probe --http3, header flood", labtest.H3HeaderFlood, probe("--http3"), 1, "the response header is larger than the limit of 1048576 bytes", 10 * time.Second},
		{"probe --http3, 1xx forever", labtest.H3InformationalForever, probe("--http3"), 1, "too many 1xx informational responses", 10 * time.Second},
		{"probe --http3, tiny receive window", labtest.H3TinyWindow, withBody("--data-binary", probe("--http3", "-s", "-w", "sent %{size_upload}, got %{http_code} with %{size_download} bytes")), 0,
			"sent 100000, got 200 with 18 bytes", 10 * time.Second},
		{"bench --http3, header flood", labtest.H3HeaderFlood, bench("--http3", "-n", "3"), 1, "response header over the limit of 1 MiB", 15 * time.Second},
		{"bench --http3, 1xx forever", labtest.H3InformationalForever, bench("--http3", "-n", "3"), 1, "too many 1xx informational responses", 15 * time.Second},
		{"bench --http3, tiny receive window", labtest.H3TinyWindow, withBody("--data", bench("--http3", "-n", "20")), 0, "20 completed, 0 failed", 15 * time.Second},
		{"page, endless HTML", labtest.PageEndless, page("--max-time", "3"), 1, "document: larger than the discovery reads", 15 * time.Second},
		{"page, endless HTML trickled", labtest.PageTrickle(100 * time.Millisecond), page("--max-time", "2"), 1, "hint: the server did not answer in time", 10 * time.Second},
		{"page, 100,000 resources", labtest.PageResources, page(), 0, "98,001 resources the page named were left out", 15 * time.Second},
		{"page, recursive CSS @import", labtest.PageCSSImports, page(), 0, "1 resource the page named was left out", 10 * time.Second},
	}
}
