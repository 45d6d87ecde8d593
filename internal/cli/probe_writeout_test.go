package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestProbeWriteOutFailures: a failed transfer writes curl's exit code
// for its failure in %{exitcode} (as curl 7.88 does on the same
// failures), its error in %{errormsg}, and runs the %{onerror} part; a
// redirect limit counts as a failure though its last hop succeeded.
func TestProbeWriteOutFailures(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	closer, cut, silent := brokenServers(t)
	plainAsTLS := "https://" + strings.TrimPrefix(srv.HTTPURL, "http://") + "/"
	tests := []struct {
		name string
		args []string
		code string // curl's exit code
		msg  string
	}{
		{"refused", []string{"http://" + labtest.ClosedAddr(t, "tcp") + "/"}, "7", "connection refused"},
		{"unknown CA", []string{srv.HTTPSURL + "/"}, "60", "certificate signed by unknown authority"},
		{"timeout", []string{"http://" + silent + "/", "--max-time", "0.3"}, "28", "deadline exceeded"},
		{"redirect limit", []string{srv.HTTPSURL + "/redirect/3", "--cacert", ca, "-L", "--max-redirs", "1"}, "47", "1 redirects followed"},
		{"closes in the handshake", []string{"https://" + closer + "/", "-k"}, "35", "EOF"},
		{"plain HTTP on https://", []string{plainAsTLS, "-k"}, "35", "does not look like a TLS handshake"},
		{"empty reply", []string{"http://" + closer + "/"}, "52", "EOF"},
		{"closes mid-body", []string{"http://" + cut + "/"}, "18", "unexpected EOF"},
		{"-f and a 404", []string{srv.HTTPURL + "/status/404", "-f"}, "22", "status 404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"probe", "-s", "-w", "ok %{exitcode}%{onerror}failed %{exitcode}: %{errormsg}"}, tt.args...)
			code, stdout, stderr := run(t, context.Background(), args...)
			if code != ExitFailure {
				t.Fatalf("probe %q = %d; want %d\nstderr:\n%s", tt.args, code, ExitFailure, stderr)
			}
			want := "ok " + tt.code + "failed " + tt.code + ": "
			if !strings.HasPrefix(stdout, want) || !strings.Contains(stdout, tt.msg) {
				t.Errorf("-w output = %q; want it to start with %q and name %q", stdout, want, tt.msg)
			}
		})
	}
}

// TestProbeWriteOutSuccess: on success %{exitcode} is 0, %{onerror}
// stops the output, and %{filename_effective} is the -o file.
func TestProbeWriteOutSuccess(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	code, stdout, stderr := run(t, context.Background(), "probe", "-o", os.DevNull, "--cacert", ca, "-L",
		"-w", "%{exitcode} %{http_code} [%{errormsg}] %{filename_effective}%{onerror} failed", srv.HTTPSURL+"/redirect/1")
	if want := "0 200 [] " + os.DevNull; code != ExitOK || stdout != want {
		t.Errorf("probe -w = %d, %q; want %d, %q\nstderr:\n%s", code, stdout, ExitOK, want, stderr)
	}
}

// TestProbeWriteOutRemoteOfFailedHandshake: a handshake that failed
// still names the server it connected to, as curl does.
func TestProbeWriteOutRemoteOfFailedHandshake(t *testing.T) {
	srv, _ := probeTarget(t, lab.Config{NoHTTP3: true})
	want := strings.TrimPrefix(srv.HTTPSURL, "https://")
	code, stdout, stderr := run(t, context.Background(), "probe", "-s", "-w", "%{remote_ip}:%{remote_port}", srv.HTTPSURL+"/")
	if code != ExitFailure || stdout != want {
		t.Errorf("probe of an untrusted certificate = %d, %q; want %d, %q\nstderr:\n%s", code, stdout, ExitFailure, want, stderr)
	}
}

// TestProbeSummaryRedirects: -n with -L says that the table is of the
// final hops and what the redirects before them took.
func TestProbeSummaryRedirects(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	code, stdout, stderr := run(t, context.Background(), "probe", "-n", "2", "-L", "--cacert", ca, srv.HTTPSURL+"/redirect/2")
	if code != ExitOK || !strings.Contains(stdout, "final hop, after 2 redirects:\n  redirects     2 ") || !strings.Contains(stdout, "\n  transfer      2 ") {
		t.Errorf("probe -n 2 -L = %d:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestProbeCurlRequestOptions: curl's -A, -e, -I, -S, -u, -f, --compressed
// and --http2-prior-knowledge, with -H winning over -A as in curl.
func TestProbeCurlRequestOptions(t *testing.T) {
	srv, _ := probeTarget(t, lab.Config{NoHTTP3: true})
	code, stdout, stderr := run(t, context.Background(), "probe", "-s", "-w", "%{method} %{http_version} %{http_code} %{referer}",
		"-A", "agent/1", "-e", "http://from.test/", "-I", "--http2-prior-knowledge", srv.HTTPURL+"/")
	if want := "HEAD 2 200 http://from.test/"; code != ExitOK || stdout != want {
		t.Errorf("probe -A -e -I --http2-prior-knowledge = %d, %q; want %d, %q\nstderr:\n%s", code, stdout, ExitOK, want, stderr)
	}
	code, stdout, stderr = run(t, context.Background(), "probe", "--json", "-A", "agent/1", "-H", "User-Agent: header/2", srv.HTTPURL+"/")
	if code != ExitOK || !strings.Contains(stdout, `"User-Agent": [`+"\n") || !strings.Contains(stdout, `"header/2"`) || strings.Contains(stdout, "agent/1") {
		t.Errorf("probe -A with -H User-Agent = %d; want the -H value alone:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, context.Background(), "probe", "-sSL", "--compressed", "-o", os.DevNull, "-w", "%{http_code}", "--json", srv.HTTPURL+"/redirect/1")
	if code != ExitOK || !strings.Contains(stdout, `"Accept-Encoding": [`+"\n"+`                "deflate, gzip, br, zstd"`) {
		t.Errorf("probe -sSL --compressed = %d; want curl's Accept-Encoding sent:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, context.Background(), "probe", "-u", "user:p@w", "--json", srv.HTTPURL+"/")
	if code != ExitOK || !strings.Contains(stdout, `"Basic dXNlcjpwQHc="`) {
		t.Errorf("probe -u user:p@w = %d; want Basic auth sent:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	// As curl -f: the body of an error is not read.
	if code, stdout, _ := run(t, context.Background(), "probe", "-f", "-w", "%{http_code} %{size_download}", srv.HTTPURL+"/status/404"); code != ExitFailure || stdout != "404 0" {
		t.Errorf("probe -f of a 404 = %d, %q; want %d, \"404 0\"", code, stdout, ExitFailure)
	}
	if code, _, _ := run(t, context.Background(), "probe", "-s", "-f", srv.HTTPURL+"/status/302"); code != ExitOK {
		t.Errorf("probe -f of a 302 = %d; want %d: only 400 and more fail", code, ExitOK)
	}
	for _, args := range [][]string{{"-I", "-X", "GET"}, {"-I", "-d", "x"}} {
		if code, _, stderr := run(t, context.Background(), append([]string{"probe", srv.HTTPURL + "/"}, args...)...); code != ExitUsage || !strings.Contains(stderr, "-I sends HEAD") {
			t.Errorf("probe %q = %d; want %d and why\nstderr:\n%s", args, code, ExitUsage, stderr)
		}
	}
}
