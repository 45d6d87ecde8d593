package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var benchmarkNet = netip.MustParsePrefix("198.18.0.0/15")

// syncBuffer is a bytes.Buffer that a command writes while a test reads
// it, or waits for a text in it.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed by the next Write, for waitFor
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return s.b.Write(p)
}

// waitFor waits until the buffer holds text, or ended is closed, or
// timeout passed; it reports whether the text came.
func (s *syncBuffer) waitFor(text string, ended <-chan struct{}, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), text) {
			s.mu.Unlock()
			return true
		}
		if s.written == nil {
			s.written = make(chan struct{})
		}
		written := s.written
		s.mu.Unlock()
		select {
		case <-written:
		case <-ended:
			return strings.Contains(s.String(), text)
		case <-deadline:
			return false
		}
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// namespaceIn returns the namespace name lab or serve printed.
func namespaceIn(s string) string { return regexp.MustCompile(`httpslab-\d+-\d+`).FindString(s) }

func assertNamespaceGone(t *testing.T, ns string) {
	t.Helper()
	if ns == "" {
		t.Fatal("no namespace name was printed")
	}
	if _, err := os.Stat("/run/netns/" + ns); !os.IsNotExist(err) {
		t.Errorf("namespace %s still exists after the command (stat: %v)", ns, err)
	}
}

// TestLabRunsCommandInsideTheLink runs a command behind the link: it must
// see the server address on its own device, get it in its environment, and
// lab must exit with its exit code and remove the namespace.
func TestLabRunsCommandInsideTheLink(t *testing.T) {
	var out, errb syncBuffer
	code := Run(context.Background(), []string{"lab", "--rtt", "10ms", "--",
		"sh", "-c", `echo "env $HTTPSLAB_SERVER_IP"; ip -4 -o addr show; exit 7`}, &out, &errb)
	if code != 7 {
		t.Fatalf("lab exited with %d; want the command's 7\nstderr: %s", code, errb.String())
	}
	m := regexp.MustCompile(`env (\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("command printed %q; want HTTPSLAB_SERVER_IP", out.String())
	}
	addr, err := netip.ParseAddr(m[1])
	if err != nil || !benchmarkNet.Contains(addr) {
		t.Errorf("HTTPSLAB_SERVER_IP = %q; want an address in %v", m[1], benchmarkNet)
	}
	if !strings.Contains(out.String(), "inet "+m[1]+" ") {
		t.Errorf("the command's namespace has addresses\n%s\nwant %s among them", out.String(), m[1])
	}
	if !strings.Contains(errb.String(), "runs at "+m[1]) {
		t.Errorf("stderr = %q; want the server address announced", errb.String())
	}
	assertNamespaceGone(t, namespaceIn(errb.String()))
}

// TestLabPassesSIGTERM sends SIGTERM to httpslab while lab waits for its
// command: the command must get it and lab exit with 128+15, as a shell.
func TestLabPassesSIGTERM(t *testing.T) {
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), []string{"lab", "--rtt", "5ms", "--", "sleep", "30"}, io.Discard, errW)
		errW.Close()
	}()
	line, err := bufio.NewReader(errR).ReadString('\n')
	if err != nil || !strings.Contains(line, "runs at") {
		t.Fatalf("lab said %q (%v); want the announcement", line, err)
	}
	go io.Copy(io.Discard, errR)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 128+int(syscall.SIGTERM) {
			t.Errorf("lab exited with %d; want %d", code, 128+int(syscall.SIGTERM))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lab did not end within 10s of SIGTERM")
	}
	assertNamespaceGone(t, namespaceIn(line))
}

func TestLabUsage(t *testing.T) {
	for _, args := range [][]string{{"lab", "--", "true"}, {"lab", "--rtt", "10ms"}, {"lab", "--loss", "200%", "--", "true"}} {
		var errb bytes.Buffer
		if code := Run(context.Background(), args, io.Discard, &errb); code != ExitUsage {
			t.Errorf("Run(%q) = %d; want %d (usage)\nstderr: %s", args, code, ExitUsage, errb.String())
		}
	}
	var errb bytes.Buffer
	Run(context.Background(), []string{"lab", "--", "true"}, io.Discard, &errb)
	if want := "give --rtt, --jitter, --loss, --bandwidth, --upload-bandwidth or --profile"; !strings.Contains(errb.String(), want) {
		t.Errorf("lab without a link: stderr %q; want %q", errb.String(), want)
	}
	errb.Reset()
	code := Run(context.Background(), []string{"lab", "--rtt", "1ms", "--", "no-such-command-here"}, io.Discard, &errb)
	if code != ExitFailure || !strings.Contains(errb.String(), "hint:") {
		t.Errorf("lab with a missing command: exit %d, stderr %q; want %d with a hint", code, errb.String(), ExitFailure)
	}
}

// TestServeBehindTheLink runs "serve --rtt 40ms": its URLs carry the
// link's address, a request works through the link and its TCP connect
// takes at least the RTT.
func TestServeBehindTheLink(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	caPath := t.TempDir() + "/ca.pem"
	pr, pw := io.Pipe()
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--rtt", "40ms", "--ca-out", caPath, "--no-http3"}, pw, &errb)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var urls []string
	for len(urls) < 2 && sc.Scan() {
		urls = append(urls, sc.Text())
	}
	go io.Copy(io.Discard, pr)
	if len(urls) != 2 || !regexp.MustCompile(`^https://198\.1[89]\.\d+\.\d+:\d+$`).MatchString(urls[1]) {
		t.Fatalf("serve --rtt printed %q; want URLs on a 198.18.0.0/15 address\nstderr: %s", urls, errb.String())
	}
	start := time.Now()
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(urls[1], "https://"), 5*time.Second)
	if err != nil {
		t.Fatalf("dialing the server behind the link: %v", err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("TCP connect took %v; want at least the 40ms RTT", d)
	}
	c.Close()
	pem, _ := os.ReadFile(caPath)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	resp, err := hc.Get(urls[1] + "/status/204")
	if err != nil {
		t.Fatalf("GET through the link: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Errorf("status %d; want 204", resp.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("serve exited with %d; want 0", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("serve did not stop within 5s of cancel")
	}
	if !strings.Contains(errb.String(), "behind an emulated link: rtt 40ms") {
		t.Errorf("stderr = %q; want the link described", errb.String())
	}
	assertNamespaceGone(t, namespaceIn(errb.String()))
}
