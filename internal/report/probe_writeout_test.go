package report

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
)

// execute runs format on in and returns stdout, stderr and the warnings.
func execute(t *testing.T, format string, in WriteOutInput) (string, string, []string) {
	t.Helper()
	wo, err := ParseWriteOut(format)
	if err != nil {
		t.Fatalf("ParseWriteOut(%q) error: %v", format, err)
	}
	var out, errOut bytes.Buffer
	if err := wo.Execute(&out, &errOut, in); err != nil {
		t.Fatalf("Execute(%q) error: %v", format, err)
	}
	return out.String(), errOut.String(), wo.Warnings
}

func TestWriteOutSyntax(t *testing.T) {
	in := WriteOutInput{Hops: []probe.Timeline{h2Fresh()}}
	tests := []struct {
		format, want string
		warnings     int
	}{
		{"plain text", "plain text", 0},
		{`a\nb\tc\rd`, "a\nb\tc\rd", 0},
		{`back\\slash`, `back\slash`, 0},
		{`\q unknown escape`, `\q unknown escape`, 0},
		{`trailing \`, `trailing \`, 0},
		{"100%%", "100%", 0},
		{"%z stays", "%z stays", 0},
		{"trailing %", "trailing %", 0},
		{"%{http_code}", "200", 0},
		{"%{HTTP_CODE}", "200", 0},
		{"%{nope}x", "x", 1},
		{"%{unterminated", "%{unterminated", 0},
		{"%header{content-type}", "application/octet-stream", 0},
		{"%header{x-missing}|", "|", 0},
		{"%header{open", "%header{open", 0},
		{"%{http_version} %{scheme} %{method}", "2 HTTPS GET", 0},
		{"%{remote_ip}:%{remote_port} %{local_ip}:%{local_port}", "127.0.0.1:8443 127.0.0.1:50000", 0},
		{"%{content_type}", "application/octet-stream", 0},
		{"%{redirect_url}|%{errormsg}|%{exitcode}", "||0", 0},
		{"%{num_connects} %{num_redirects} %{num_certs} %{num_headers}", "1 0 2 3", 0},
		{"%{size_download} %{size_header}", "1000 90", 0},
		{"%{ssl_verify_result} %{url_effective}", "0 https://localhost:8443/bytes/1000?x=1", 0},
		{"ok%{onerror}only on error", "ok", 0},
	}
	for _, tt := range tests {
		got, _, warnings := execute(t, tt.format, in)
		if got != tt.want || len(warnings) != tt.warnings {
			t.Errorf("write-out %q = %q with %d warnings %q; want %q with %d", tt.format, got, len(warnings), warnings, tt.want, tt.warnings)
		}
	}
}

func TestWriteOutUnknownVariableWarning(t *testing.T) {
	_, _, warnings := execute(t, "%{time_nonsense}", WriteOutInput{})
	want := "unknown --write-out variable: 'time_nonsense'"
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings = %q; want [%q]", warnings, want)
	}
}

func TestWriteOutStreams(t *testing.T) {
	in := WriteOutInput{Hops: []probe.Timeline{h2Fresh()}}
	out, errOut, _ := execute(t, "a%{stderr}b%{stdout}c", in)
	if out != "ac" || errOut != "b" {
		t.Errorf("stdout, stderr = %q, %q; want %q, %q", out, errOut, "ac", "b")
	}
}

// TestWriteOutOutputFile: %output{file} sends what follows to a file made
// anew for each transfer, %output{>>file} appends to one, and %{stdout}
// goes back.
func TestWriteOutOutputFile(t *testing.T) {
	dir := t.TempDir()
	fresh, appended := filepath.Join(dir, "codes.txt"), filepath.Join(dir, "log.txt")
	in := WriteOutInput{Hops: []probe.Timeline{h2Fresh()}}
	format := "a%output{" + fresh + "}%{http_code}\n%output{>>" + appended + "}%{http_version}\n%{stdout}b"
	for range 2 {
		if out, _, warns := execute(t, format, in); out != "ab" || len(warns) != 0 {
			t.Errorf("stdout %q, warnings %q; want %q and none", out, warns, "ab")
		}
	}
	for path, want := range map[string]string{fresh: "200\n", appended: "2\n2\n"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", filepath.Base(path), got, err, want)
		}
	}
	wo, err := ParseWriteOut("%output{" + filepath.Join(dir, "no", "such", "dir") + "}x")
	if err != nil {
		t.Fatal(err)
	}
	if err := wo.Execute(&bytes.Buffer{}, &bytes.Buffer{}, in); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("%%output to a missing directory: error %v; want one naming it", err)
	}
}

func TestWriteOutFailedTransfer(t *testing.T) {
	in := WriteOutInput{Hops: []probe.Timeline{refused()}, ExitCode: 1}
	format := "[%{scheme}] %{http_code} %{response_code} %{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_starttransfer} %{time_total} %{size_request} %{exitcode} [%{errormsg}]%{onerror} failed"
	got, _, _ := execute(t, format, in)
	// As curl: no scheme without a connection, response codes in three
	// digits, and no request size for a request that was never sent.
	want := "[] 000 000 0.000045 0.000000 0.000000 0.000000 0.000000 0.000400 0 1 [dial tcp 127.0.0.1:1: connect: connection refused] failed"
	if got != want {
		t.Errorf("failed transfer:\n got %q\nwant %q", got, want)
	}
}

// TestWriteOutTimes checks curl's cumulative view, including its rule
// that with -L the time_* of every hop are added together while
// time_redirect covers the hops before the final one.
func TestWriteOutTimes(t *testing.T) {
	format := "%{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} %{time_posttransfer} %{time_starttransfer} %{time_redirect} %{time_total}"
	refusedByIP := refused()
	refusedByIP.Events.DNSStart, refusedByIP.Events.DNSDone = time.Time{}, time.Time{}
	refusedByIP = timeline(refusedByIP)
	tests := []struct {
		name string
		hops []probe.Timeline
		want string
	}{
		{"h2", []probe.Timeline{h2Fresh()}, "0.000110 0.001120 0.002140 0.002150 0.002200 0.003500 0.000000 0.003700"},
		{"reused", []probe.Timeline{reused()}, "0.000005 0.000005 0.000005 0.000005 0.000030 0.001030 0.000000 0.001100"},
		{"h3 by IP", []probe.Timeline{h3()}, "0.000020 0.001020 0.001020 0.001030 0.001040 0.002040 0.000000 0.002100"},
		{"plain then TLS", redirectHops(), "0.000090 0.001110 0.002560 0.003140 0.003200 0.004700 0.002000 0.005200"},
		// As curl: the name of an IP literal was known when the first
		// dial attempt began, though none connected.
		{"refused by IP", []probe.Timeline{refusedByIP}, "0.000050 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000 0.000400"},
	}
	for _, tt := range tests {
		got, _, _ := execute(t, format, WriteOutInput{Hops: tt.hops})
		if got != tt.want {
			t.Errorf("%s: times\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestWriteOutRedirect(t *testing.T) {
	hops := redirectHops()
	got, _, _ := execute(t, "%{url} %{url_effective} %{num_redirects} %{num_connects} %{size_header} %{http_code}", WriteOutInput{Hops: hops})
	want := "http://localhost:8080/redirect/1 https://localhost:8443/final 1 2 270 200"
	if got != want {
		t.Errorf("with -L:\n got %q\nwant %q", got, want)
	}
	// Without -L the 301 is the final response and redirect_url says
	// where it would have gone.
	got, _, _ = execute(t, "%{http_code} %{redirect_url} %{scheme}", WriteOutInput{Hops: hops[:1]})
	want = "301 https://localhost:8443/final HTTP"
	if got != want {
		t.Errorf("without -L:\n got %q\nwant %q", got, want)
	}
}

// TestCurlFormatFile runs seed 000's curl-format.txt, kept unchanged at
// the repository root, and checks that every variable is known and
// printed.
func TestCurlFormatFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "curl-format.txt"))
	if err != nil {
		t.Fatal(err)
	}
	format := JoinFormatLines(string(b))
	vars := regexp.MustCompile(`%\{([a-z_]+)\}`).FindAllStringSubmatch(format, -1)
	if len(vars) != 16 {
		t.Fatalf("curl-format.txt has %d variables; want 16", len(vars))
	}
	got, _, warnings := execute(t, format, WriteOutInput{Hops: []probe.Timeline{h2Fresh()}})
	if len(warnings) != 0 {
		t.Errorf("warnings = %q; want none", warnings)
	}
	if strings.Contains(got, "%") || strings.Contains(got, `\n`) {
		t.Errorf("output still holds format syntax:\n%s", got)
	}
	for _, v := range vars {
		if _, ok := writeoutVars[v[1]]; !ok {
			t.Errorf("variable %s is not known", v[1])
		}
	}
	labtest.Golden(t, "curl-format.golden", []byte(got))
}

func TestWriteOutJSON(t *testing.T) {
	got, _, _ := execute(t, "%{json}", WriteOutInput{Hops: redirectHops(), Filename: "out.bin"})
	var m map[string]any
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("%%{json} is not JSON: %v\n%s", err, got)
	}
	if len(m) != len(writeoutVars) {
		t.Errorf("%%{json} has %d keys; want %d", len(m), len(writeoutVars))
	}
	checks := map[string]any{
		"http_code": 200.0, "time_redirect": 0.002, "errormsg": nil, "url_effective": "https://localhost:8443/final",
		"filename_effective": "out.bin", "num_redirects": 1.0, "content_type": "text/plain",
	}
	for k, want := range checks {
		if m[k] != want {
			t.Errorf("%%{json}[%q] = %v; want %v", k, m[k], want)
		}
	}
	labtest.Golden(t, "writeout-json.golden", []byte(got))
}

func TestWriteOutHeaderJSON(t *testing.T) {
	tl := h2Fresh()
	tl.Header["X-Multi"] = []string{"a", "b"}
	got, _, _ := execute(t, "%{header_json}", WriteOutInput{Hops: []probe.Timeline{tl}})
	var m map[string][]string
	if err := json.Unmarshal([]byte(got), &m); err != nil {
		t.Fatalf("%%{header_json} is not JSON: %v", err)
	}
	if len(m["x-multi"]) != 2 || m["content-type"][0] != "application/octet-stream" {
		t.Errorf("%%{header_json} = %s; want lower-case names with all values", got)
	}
	// As curl writes it: one field a line.
	if want := "{\"content-length\":[\"1000\"],\n\"content-type\":[\"application/octet-stream\"],\n"; !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "]\n}") {
		t.Errorf("%%{header_json} = %q; want one field a line, starting %q", got, want)
	}
}

func TestJoinFormatLines(t *testing.T) {
	tests := []struct{ in, want string }{
		{"%{http_code}", "%{http_code}"},
		{"%{http_code}\n", "%{http_code}"},
		{"from\r\nstdin\n", "fromstdin"},
		{`a\nb` + "\n", `a\nb`}, // the escape stays for ParseWriteOut
	}
	for _, tt := range tests {
		if got := JoinFormatLines(tt.in); got != tt.want {
			t.Errorf("JoinFormatLines(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseWriteOut(f *testing.F) {
	seeds := []string{
		"", "%", `\`, "%%", "%{", "%{}", "%header{", "%header{}", `\n\r\t\\\x`,
		"%{json}", "%{header_json}", "%{stderr}x%{stdout}", "%{onerror}x",
		"%{time_total}s\n", "%{http_code} %header{content-type}", "%{nope}",
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "curl-format.txt")); err == nil {
		seeds = append(seeds, string(b))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	hops := redirectHops()
	f.Fuzz(func(t *testing.T, format string) {
		wo, err := ParseWriteOut(format)
		if err != nil {
			t.Fatalf("ParseWriteOut(%q) error: %v", format, err)
		}
		var out, errOut bytes.Buffer
		if err := wo.Execute(&out, &errOut, WriteOutInput{Hops: hops}); err != nil {
			t.Fatalf("Execute(%q) error: %v", format, err)
		}
		if !strings.ContainsAny(format, `%\`) && out.String() != format {
			t.Errorf("plain format %q wrote %q; want it unchanged", format, out.String())
		}
		if err := wo.Execute(&out, &errOut, WriteOutInput{}); err != nil {
			t.Fatalf("Execute(%q) with no hops error: %v", format, err)
		}
	})
}

// TestWriteOutVerifyResult: OpenSSL's code for the chain, as curl
// reports it, with -k too, and for a handshake that failed on the
// certificate.
func TestWriteOutVerifyResult(t *testing.T) {
	plain := redirectHops()[0]
	valid := h2Fresh()
	valid.TLS.Verified = false
	selfSigned := h2Fresh()
	selfSigned.TLS.Verified, selfSigned.TLS.VerifyResult = false, probe.VerifySelfSignedLeaf
	failed := refused()
	failed.Events.ConnectDone, failed.Events.TLSStart = at(100), at(110)
	expired := x509.CertificateInvalidError{Reason: x509.Expired, Cert: &x509.Certificate{NotBefore: time.Now().Add(-time.Hour)}}
	tests := []struct {
		name string
		tl   probe.Timeline
		err  error
		want string
	}{
		{"verified", h2Fresh(), nil, "0"},
		{"-k, a chain that verifies", valid, nil, "0"},
		{"-k, expired", hrrEarly(), nil, "10"},
		{"-k, self-signed", selfSigned, nil, "18"},
		{"plain HTTP", plain, nil, "0"},
		{"refused before TLS", refused(), errors.New("refused"), "0"},
		{"handshake failed on an expired certificate", failed, &tls.CertificateVerificationError{Err: expired}, "10"},
		{"handshake failed otherwise", failed, io.EOF, "1"},
	}
	for _, tt := range tests {
		got, _, _ := execute(t, "%{ssl_verify_result}", WriteOutInput{Hops: []probe.Timeline{tt.tl}, Err: tt.err})
		if got != tt.want {
			t.Errorf("%s: ssl_verify_result = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// TestWriteOutCurlVariables checks that curl's variables for HTTP
// transfers are all known.
func TestWriteOutCurlVariables(t *testing.T) {
	names := strings.Fields(`time_namelookup time_connect time_appconnect time_pretransfer
		time_starttransfer time_redirect time_total time_posttransfer http_code response_code
		http_version scheme remote_ip remote_port local_ip local_port ssl_verify_result
		size_download size_header size_request size_upload speed_download speed_upload
		num_connects num_redirects num_headers num_certs certs redirect_url url url_effective
		content_type exitcode errormsg method filename_effective referer http_connect
		proxy_ssl_verify_result urlnum json header_json stdout stderr onerror`)
	for _, name := range names {
		if _, _, warnings := execute(t, "%{"+name+"}", WriteOutInput{}); len(warnings) != 0 {
			t.Errorf("%%{%s}: %q; want it known", name, warnings)
		}
	}
}

func TestWriteOutUpload(t *testing.T) {
	// size_request, as curl 7.88 counts it: "POST /headers HTTP/2\r\n"
	// (22), User-Agent (22), Accept (13), Content-Type (49), the -H Host
	// (21), the Content-Length net/http sends (22), the blank line (2);
	// over HTTP/2 without the body, over HTTP/1.1 ("HTTP/1.1", 2 B more)
	// with its 1000 B. speed_upload: 1000 B in 3.7 ms.
	h1 := h2Fresh()
	h1.Proto = "HTTP/1.1"
	postH1 := post()
	postH1.Proto = "HTTP/1.1"
	// A POST redirected by a 302 becomes a GET: curl's size_upload is
	// the final request's (0), its size_request the sum of both.
	redirected := []probe.Timeline{postH1, h1}
	tests := []struct {
		name string
		hops []probe.Timeline
		want string
	}{
		{"post", []probe.Timeline{post()}, "1000 270270 151"},
		{"post over HTTP/1.1", []probe.Timeline{postH1}, "1000 270270 1153"},
		{"post redirected", redirected, "0 0 1242"},
		{"get", []probe.Timeline{h2Fresh()}, "0 0 87"},        // no body, Host from the URL
		{"get over HTTP/1.1", []probe.Timeline{h1}, "0 0 89"}, // "HTTP/1.1" ends the request line
		{"not sent", []probe.Timeline{refused()}, "0 0 0"},    // the connection failed
	}
	for _, tt := range tests {
		got, _, _ := execute(t, "%{size_upload} %{speed_upload} %{size_request}", WriteOutInput{Hops: tt.hops})
		if got != tt.want {
			t.Errorf("%s: size_upload speed_upload size_request = %q; want %q", tt.name, got, tt.want)
		}
	}
}
