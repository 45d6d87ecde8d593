//go:build !race

// The browser tests start a headless Chromium per load (several
// processes, seconds each on a busy machine): they run once, without the
// race detector, which would only slow this process's side of them.

package page

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// needChromium skips a test where Debian's chromium is not installed
// (the test command installs it).
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("chromium is not installed")
	}
}

// browserConfig is cfg loaded by Chromium, with a bound for a busy
// machine.
func browserConfig(cfg Config) Config {
	cfg.Engine, cfg.LoadTimeout = EngineChromium, 90*time.Second
	return cfg
}

// TestChromiumLoads loads the styled page (a stylesheet that imports
// another, a used and an unused web font, matched and unmatched
// background images, srcset, a script) in Chromium over each protocol,
// trusting the lab's CA through the key hash httpslab verified: the
// browser requests what httpslab's engine requests, every response over
// the protocol forced, on six connections at most over HTTP/1.1 and one
// over HTTP/2 and HTTP/3, with the browser's timings in order and the
// CPU time of its processes. The browser's processes are gone after each
// load, and so are the files it made in the temporary directory.
func TestChromiumLoads(t *testing.T) {
	needChromium(t)
	srv := labtest.StartServer(t, lab.Config{})
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, tt := range []struct {
		proto     Protocol
		respProto string
		maxConns  int
	}{{HTTP, "HTTP/1.1", 6}, {HTTP1, "HTTP/1.1", 6}, {HTTP2, "HTTP/2.0", 1}, {HTTP3, "HTTP/3.0", 1}} {
		cfg := configFor(srv, tt.proto, "/page/styled")
		own := load(t, cfg)
		ld, err := Run(context.Background(), browserConfig(cfg))
		if err != nil {
			t.Errorf("%s: %v", tt.proto, err)
			continue
		}
		// Headless Chromium fetches no icon (a browser with a window
		// fetches it apart from the page's load): the rest is the same.
		got, want := paths(t, ld), slices.DeleteFunc(paths(t, own), func(p string) bool { return strings.Contains(p, ".ico") })
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: Chromium requested\n%q\nhttpslab requested\n%q", tt.proto, got, want)
		}
		for _, r := range ld.Requests {
			if r.Proto != tt.respProto || r.Status != 200 || r.Conn == 0 || r.Priority == "" {
				t.Errorf("%s: request %d %s: %s %d on connection %d, priority %q; want %s 200", tt.proto, r.ID, r.URL, r.Proto, r.Status, r.Conn, r.Priority, tt.respProto)
			}
		}
		if ld.Engine != EngineChromium || !strings.Contains(ld.Browser, "/") || len(ld.Conns) == 0 || len(ld.Conns) > tt.maxConns {
			t.Errorf("%s: engine %q, browser %q, %d connections; want chromium, a version, 1 to %d", tt.proto, ld.Engine, ld.Browser, len(ld.Conns), tt.maxConns)
		}
		if !(0 < ld.TTFB && ld.TTFB < ld.DOMContentLoaded && ld.DOMContentLoaded <= ld.Duration) || ld.LCP < ld.TTFB {
			t.Errorf("%s: TTFB %v, DOMContentLoaded %v, load %v, LCP %v; want 0 < TTFB < DOMContentLoaded <= load, an LCP", tt.proto, ld.TTFB, ld.DOMContentLoaded, ld.Duration, ld.LCP)
		}
		// The document's own connection shows its handshake: the
		// browser opened it for the document, not ahead of it.
		if doc := ld.Requests[0]; tt.proto.secure() && (!hasPhase(doc, PhaseTLS) || ld.Conns[0].TLSVersion == "") {
			t.Errorf("%s: the document's phases %+v on connection %+v; want a TLS handshake", tt.proto, doc.Phases, ld.Conns[0])
		}
		if ld.BrowserCPU["browser"] <= 0 || ld.BrowserCPU["renderer"] <= 0 || ld.BrowserCPU["network"] <= 0 {
			t.Errorf("%s: the browser's CPU by process %v; want its browser, renderer and network processes' time", tt.proto, ld.BrowserCPU)
		}
		if left := browserChildren(); len(left) > 0 {
			t.Errorf("%s: browser processes left after the load: %v", tt.proto, left)
		}
		if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
			t.Errorf("%s: left in the temporary directory after the load: %v (%v)", tt.proto, left, err)
		}
	}
}

// TestChromiumTrust: a server whose certificate the load's CA did not
// sign is refused before the browser starts (no blanket
// --ignore-certificate-errors), -k loads it, and a load past its timeout
// ends with the browser killed.
func TestChromiumTrust(t *testing.T) {
	needChromium(t)
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	other := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	cfg := browserConfig(configFor(srv, HTTP2, "/page/images?n=3&size=2000"))
	cfg.TLS = transport.TLS{Trust: transport.Trust{RootCAs: other.CA.Pool()}}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("a certificate of another CA: %v; want a certificate error", err)
	}
	cfg.TLS = transport.TLS{Trust: transport.Trust{Insecure: true}}
	if ld, err := Run(context.Background(), cfg); err != nil || len(ld.Requests) != 4 {
		t.Errorf("-k: %v; want a load of 4 requests", err)
	}
	cfg = browserConfig(configFor(srv, HTTP2, "/delay/30s"))
	cfg.LoadTimeout = 3 * time.Second
	start := time.Now()
	_, err := Run(context.Background(), cfg)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 20*time.Second {
		t.Errorf("a load past its 3 s timeout: %v after %v; want the deadline within 20 s", err, time.Since(start))
	}
	if left := browserChildren(); len(left) > 0 {
		t.Errorf("browser processes left after the timeout: %v", left)
	}
}

// browserChildren lists the processes whose parent is this process and
// whose command is a browser's, after giving them a moment to go.
func browserChildren() []string {
	var left []string
	for range 20 {
		left = left[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err != nil {
				continue
			}
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
			s := string(stat)
			i := strings.LastIndexByte(s, ')')
			fields := strings.Fields(s[i+1:])
			if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) && strings.Contains(s[:i], "chrom") {
				left = append(left, e.Name()+" "+s[strings.IndexByte(s, '(')+1:i])
			}
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return left
}

// hasPhase reports whether r has a phase named name of some duration.
func hasPhase(r Request, name string) bool {
	return slices.ContainsFunc(r.Phases, func(ph Phase) bool { return ph.Name == name && ph.Duration > 0 })
}
