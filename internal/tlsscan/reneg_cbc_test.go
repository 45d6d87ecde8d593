//go:build !race

// These tests start nginx and openssl processes: heavy integration tests
// that run once, in the pass without the race detector.

package tlsscan

import (
	"context"
	"io"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// sClientRenegotiates asks for a renegotiation as openssl s_client does
// with its R command, at TLS 1.2 with the OpenSSL cipher list ciphers,
// and reports whether the server renegotiated: s_client verifies the
// certificate of a new handshake ("depth=0" again), or says "no
// renegotiation" when the server refuses.
func sClientRenegotiates(t *testing.T, addr, ciphers string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "openssl", "s_client", "-connect", addr, "-tls1_2", "-cipher", ciphers)
	r, w := io.Pipe()
	cmd.Stdin = r
	go func() {
		_, _ = io.WriteString(w, "R\n")
		// s_client stops at the end of its input: it gets a second
		// to finish the renegotiation first.
		time.Sleep(time.Second)
		w.Close()
	}()
	out, _ := cmd.CombinedOutput()
	_, after, ok := strings.Cut(string(out), "RENEGOTIATING")
	switch {
	case !ok:
		t.Fatalf("openssl s_client -cipher %s to %s did not renegotiate:\n%s", ciphers, addr, out)
	case strings.Contains(after, "no renegotiation"):
		return false
	case strings.Contains(after, "depth=0"):
		return true
	}
	t.Fatalf("openssl s_client -cipher %s to %s: no verdict on the renegotiation:\n%s", ciphers, addr, out)
	return false
}

// cbcRenegSuites are CBC suites as OpenSSL names them, one of each kind
// the check speaks: RSA, ECDHE and DHE key exchange, AES-128 and AES-256,
// HMAC-SHA1, SHA-256 and SHA-384 (this OpenSSL has no 3DES: Go's server
// has it, see TestClientRenegotiationCBCGo); the first is a pair, of
// which the check's ClientHello gets the ECDHE suite.
// A renegTarget is an OpenSSL cipher string the server is held to, with
// the key of its certificate and the suite the check must have used.
type renegTarget struct {
	cert    lab.KeyKind
	ciphers string
	want    string
}

var cbcRenegSuites = []renegTarget{
	{lab.RSA2048, "AES128-SHA:ECDHE-RSA-AES128-SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"},
	{lab.RSA2048, "AES128-SHA", "TLS_RSA_WITH_AES_128_CBC_SHA"},
	{lab.RSA2048, "AES256-SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA256"},
	{lab.RSA2048, "ECDHE-RSA-AES256-SHA384", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384"},
	{lab.ECDSAP256, "ECDHE-ECDSA-AES128-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"},
	{lab.RSA2048, "DHE-RSA-AES128-SHA", "TLS_DHE_RSA_WITH_AES_128_CBC_SHA"},
	{lab.RSA2048, "DHE-RSA-AES256-SHA256", "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256"},
}

// TestClientRenegotiationCBCNginx: against nginx held to CBC suites the
// renegotiation check completes its handshake (the server's Finished
// decrypts and its MAC checks) and sends its ClientHello inside it, which
// nginx refuses with the alert no_renegotiation, as it refuses openssl
// s_client's R: "refused", as s_client sees it.
func TestClientRenegotiationCBCNginx(t *testing.T) {
	// nginx uses DHE suites only with a prime of ssl_dhparam.
	_, dh2048 := dhParams(t)
	for _, tt := range cbcRenegSuites {
		t.Run(tt.ciphers, func(t *testing.T) {
			t.Parallel()
			n := labtest.StartNginx(t, lab.NginxConfig{Cert: tt.cert, NoDefaults: true,
				TLSDirectives: "ssl_protocols TLSv1.2;\nssl_ciphers " + tt.ciphers + ";\nssl_dhparam " + dh2048 + ";"})
			u, _ := url.Parse(n.HTTPSURL)
			checkRenegotiationVerdict(t, u.Host, tt.ciphers, tt.want, false)
		})
	}
}

// TestClientRenegotiationCBCOpenSSL: openssl s_server held to CBC suites
// renegotiates when the client asks with -client_renegotiation, and
// refuses without it; the check says so for each suite, as openssl
// s_client's R does.
func TestClientRenegotiationCBCOpenSSL(t *testing.T) {
	renegotiationOpenSSL(t, cbcRenegSuites)
}

// renegotiationOpenSSL runs the check against openssl s_server held to
// each of suites, with and without -client_renegotiation, and wants its
// verdict to be s_client's R's.
func renegotiationOpenSSL(t *testing.T, suites []renegTarget) {
	ca, err := lab.NewCA(lab.RSA2048)
	if err != nil {
		t.Fatal(err)
	}
	leaves := map[lab.KeyKind]*lab.Leaf{}
	for _, s := range suites {
		if leaves[s.cert] == nil {
			if leaves[s.cert], err = ca.Issue(s.cert, "127.0.0.1"); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tt := range suites {
		for _, allow := range []bool{true, false} {
			name := tt.ciphers + "/refused"
			args := []string{"-tls1_2", "-cipher", tt.ciphers}
			if allow {
				name = tt.ciphers + "/allowed"
				args = append(args, "-client_renegotiation")
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				addr := labtest.StartOpenSSLServer(t, leaves[tt.cert], args...)
				checkRenegotiationVerdict(t, addr, tt.ciphers, tt.want, allow)
			})
		}
	}
}

// checkRenegotiationVerdict runs the check against addr and s_client's R
// with ciphers, and wants both to say allowed, or both refused, after a
// handshake with the suite want.
func checkRenegotiationVerdict(t *testing.T, addr, ciphers, want string, allowed bool) {
	t.Helper()
	p := newProber(addr, "127.0.0.1", 2, 5*time.Second, nil)
	status, seen, err := checkClientRenegotiation(context.Background(), p)
	if err != nil {
		t.Fatalf("checkClientRenegotiation: %v", err)
	}
	if got := sClientRenegotiates(t, addr, ciphers); got != allowed {
		t.Fatalf("openssl s_client's R renegotiated: %v; want %v", got, allowed)
	}
	wantStatus, wantSeen := NotVulnerable, "alert 100 (no_renegotiation)"
	if allowed {
		wantStatus, wantSeen = Vulnerable, "got a ServerHello"
	}
	if status != wantStatus || !strings.Contains(seen, wantSeen) || !strings.HasPrefix(seen, want+": ") {
		t.Errorf("checkClientRenegotiation = %s (%s); want %s, %q, after a handshake with %s", status, seen, wantStatus, wantSeen, want)
	}
}
